/**
 * Contact inquiries (spec, ContactInquiry): reading the three accepted body types, validating,
 * storing the inquiry with its e-mail to the studio (and its webhook event) in one atomic commit,
 * and the e-mail itself.
 *
 * @module
 */
import { createId } from "../store/ids.ts";
import { ApiError } from "../contract/api_error.ts";
import {
  ATTRIBUTION_FIELDS,
  CONTACT_FIELDS,
  getRequestBody,
  MAX_BODY_BYTES,
  RETENTION_DAYS,
} from "../contract/contract.ts";
import { requireFields } from "../contract/require_fields.ts";
import { ContactInquiry } from "../contract/request_structs.ts";
import { escapeHtml, type MailAddresses, type OutgoingMail, toHeaderText } from "../mail/mail.ts";
import {
  BodyError,
  discardBody,
  isUtf8,
  JSON_BODY_PROBLEMS,
  parseJsonMembers,
  readBody,
  readMediaType,
} from "../http/read_body.ts";
import type { Clock, Logger } from "../ports.ts";
import type { Outbox } from "../mail/outbox.ts";
import { buildInquiryEvent } from "../webhooks/webhook_events.ts";
import type { GroupCommit } from "../store/group_commit.ts";
import type { AtomicOperation, Store } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { addToCounter, toErrorType } from "../telemetry/telemetry.ts";

/** The media types a contact body may have (spec, POST /api/v1/contact). */
export const CONTACT_MEDIA_TYPES: readonly string[] =
  getRequestBody("createContactInquiry").mediaTypes;

/** Key prefix of stored inquiries: `["inquiry", id]`, ids sorting by time of receipt. */
export const INQUIRY_PREFIX = ["inquiry"] as const;

/** A stored inquiry. */
export interface InquiryRecord {
  /** A ULID: sorts by time of receipt. */
  id: string;
  /** When it was received, ISO 8601 UTC. */
  receivedAt: string;
  /** The validated fields. */
  fields: ContactInquiry;
  /** The client's rate-limit key: its IPv4 address or IPv6 /64. */
  clientAddress: string;
  /** The User-Agent header, at most 500 characters. */
  userAgent?: string;
  /** The Referer header, at most 1000 characters. */
  referrer?: string;
  /** The outbox ids of the e-mails it caused. */
  mailIds: string[];
  /** Whether the team has answered it; absent means `open` (inquiries stored before states). */
  state?: InquiryState;
  /** When it was marked answered, ISO 8601 UTC. */
  answeredAt?: string;
  /** The team member who marked it answered. */
  answeredBy?: string;
}

/** An inquiry's state on the team's desk. */
export type InquiryState = "open" | "answered";

/** An inquiry's state, `open` for a record stored before inquiries had one. */
export function readInquiryState(record: InquiryRecord): InquiryState {
  return record.state ?? "open";
}

/** Where an inquiry came from, besides its fields. */
export interface InquiryOrigin {
  /** The client's rate-limit key. */
  clientAddress: string;
  /** The User-Agent header. */
  userAgent?: string;
  /** The Referer header. */
  referrer?: string;
}

function badForm(message: string): ApiError {
  return new ApiError("bad-form", {
    status: 400,
    message,
    hint: `Send the ContactInquiry fields as ${CONTACT_MEDIA_TYPES.join(", ")} (UTF-8), at most ${
      MAX_BODY_BYTES.createContactInquiry / 1024
    } KiB`,
  });
}

function readFormFields(form: { getAll(name: string): unknown[] }): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(CONTACT_FIELDS)) {
    const values = form.getAll(name);
    if (!values.length) continue;
    if (name === "Name" && values.every((value) => typeof value === "string")) {
      // The site's form posts first and last name as two fields named Name (spec, ContactInquiry).
      fields.Name = (values as string[]).map((value) => value.trim()).filter(Boolean).join(" ");
    } else {
      fields[name] = values[0];
    }
  }
  return fields;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badForm(JSON_BODY_PROBLEMS.encoding);
  }
}

/**
 * Reads a contact body of one of the three accepted media types into raw fields.
 *
 * @param request The request; its body is consumed.
 * @returns The members named like ContactInquiry fields, not yet validated.
 * @throws {ApiError} 400 `bad-form` for another media type, a body over
 * `MAX_BODY_BYTES.createContactInquiry`, a charset other than UTF-8, or a body that does not parse.
 */
export async function readInquiryBody(request: Request): Promise<Record<string, unknown>> {
  const contentType = request.headers.get("Content-Type") ?? "";
  const { mediaType, charset } = readMediaType(request);
  if (!CONTACT_MEDIA_TYPES.includes(mediaType)) {
    discardBody(request);
    throw badForm(
      mediaType
        ? `Content-Type "${toHeaderText(mediaType, 100)}" is not accepted`
        : "Content-Type is missing",
    );
  }
  if (!isUtf8(charset)) {
    discardBody(request);
    throw badForm(`Charset "${toHeaderText(charset ?? "", 40)}" is not accepted`);
  }
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBody(request, MAX_BODY_BYTES.createContactInquiry);
  } catch (error) {
    if (error instanceof BodyError && error.problem === "too-large") {
      throw badForm(`The body is larger than ${MAX_BODY_BYTES.createContactInquiry / 1024} KiB`);
    }
    if (error instanceof BodyError && error.problem === "too-slow") {
      throw badForm("The body did not arrive in time");
    }
    throw badForm("The body could not be read");
  }
  if (mediaType === "application/json") {
    const parsed = parseJsonMembers(bytes, Object.keys(CONTACT_FIELDS));
    if (!parsed.ok) throw badForm(JSON_BODY_PROBLEMS[parsed.problem]);
    return parsed.members;
  }
  if (mediaType === "application/x-www-form-urlencoded") {
    return readFormFields(new URLSearchParams(decodeUtf8(bytes)));
  }
  // The contact form has no file inputs, so the whole body must be UTF-8 text, as JSON and
  // urlencoded bodies must; formData() would quietly turn bad bytes into U+FFFD.
  const text = decodeUtf8(bytes);
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  // A body cut short before its closing delimiter parses as an empty form in some runtimes.
  if (!boundary || !text.includes(`--${boundary}--`)) {
    throw badForm("The multipart body does not parse");
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw badForm("The multipart body does not parse");
  }
  return readFormFields(form);
}

/**
 * Validates raw contact fields.
 *
 * @returns The trimmed, typed inquiry.
 * @throws {ApiError} 400 `validation-failed` whose hint names the first failing field, with
 * every failing field in `details`.
 */
export function validateInquiry(fields: Record<string, unknown>): ContactInquiry {
  return requireFields(CONTACT_FIELDS, ContactInquiry, fields);
}

/**
 * Builds the e-mail that routes an inquiry to the studio inbox (in Portuguese, the studio's
 * language): Reply-To is the sender's validated address, the subject names the sender and the
 * category, and the body has the message and its UTM/gclid attribution.
 *
 * @param record The stored inquiry.
 * @param addresses The studio's From address and inbox.
 */
export function buildInquiryMail(
  record: Omit<InquiryRecord, "mailIds">,
  addresses: MailAddresses,
): OutgoingMail {
  const { fields } = record;
  const name = toHeaderText(fields.Name);
  const category = fields.Category ? toHeaderText(fields.Category, 100) : undefined;
  const attribution = ATTRIBUTION_FIELDS.filter((key) => fields[key])
    .map((key) => [key, fields[key] as string] as const);
  const lines = [
    "Novo pedido de contacto recebido pelo site.",
    "",
    `Nome: ${fields.Name}`,
    `E-mail: ${fields.Email}`,
    `Categoria: ${fields.Category ?? "(não indicada)"}`,
    "",
    "Mensagem:",
    fields.Message,
    "",
    "Atribuição:",
    ...(attribution.length
      ? attribution.map(([key, value]) => `${key}: ${value}`)
      : ["(sem dados de campanha)"]),
    "",
    `Recebido: ${record.receivedAt} · ID ${record.id}`,
    `Responda a este e-mail para escrever diretamente a ${fields.Name}.`,
  ];
  const row = (label: string, value: string) =>
    `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`;
  const html = [
    '<!doctype html><html lang="pt-PT"><body>',
    "<p>Novo pedido de contacto recebido pelo site.</p>",
    "<table>",
    row("Nome", fields.Name),
    row("E-mail", fields.Email),
    row("Categoria", fields.Category ?? "(não indicada)"),
    "</table>",
    `<p style="white-space:pre-wrap">${escapeHtml(fields.Message)}</p>`,
    "<h3>Atribuição</h3>",
    attribution.length
      ? `<table>${attribution.map(([key, value]) => row(key, value)).join("")}</table>`
      : "<p>(sem dados de campanha)</p>",
    `<p><small>Recebido: ${escapeHtml(record.receivedAt)} · ID ${
      escapeHtml(record.id)
    }</small></p>`,
    "</body></html>",
  ].join("\n");
  return {
    messageId: `inquiry-${record.id}@${addresses.messageIdDomain}`,
    from: addresses.from,
    to: [addresses.inbox],
    replyTo: fields.Email,
    subject: `Novo contacto: ${name}${category ? ` · ${category}` : ""}`,
    text: lines.join("\n"),
    html,
  };
}

/** What {@linkcode submitInquiry} uses: narrow ports, not the whole set of services. */
export interface InquiryServices {
  /**
   * Commits the inquiry to the store, with others received meanwhile: each inquiry's operation
   * is atomic on its own, and a group's commit only joins their costs.
   */
  groupCommit: GroupCommit;
  /**
   * Queues the inquiry's e-mail and its `inquiry.received` webhook event in the same commit,
   * and delivers them.
   */
  outbox: Outbox;
  /** The time of receipt. */
  clock: Clock;
  /** Where a failed commit is logged. */
  logger: Logger;
  /** From and the studio's inbox. */
  mail: MailAddresses;
}

/**
 * Stores an inquiry, its e-mail to the studio and its `inquiry.received` webhook event (when
 * webhooks are configured) in one atomic commit, then asks the outbox to deliver. Nothing is half-written: either both are stored or neither. A commit refused because a
 * local KV file is locked by another process is tried again (`STORE_CONTENTION_RETRY`).
 *
 * @param services The store and outbox it commits to, the clock, the log and the addresses.
 * @param fields The validated inquiry.
 * @param origin Where it came from.
 * @returns The stored record.
 * @throws {ApiError} 500 `no-backend` when the store cannot commit (still locked after three
 * attempts, or any other failure).
 */
export async function submitInquiry(
  services: InquiryServices,
  fields: ContactInquiry,
  origin: InquiryOrigin,
): Promise<InquiryRecord> {
  try {
    const record = await storeInquiry(services, fields, origin);
    addToCounter("inquiries", { outcome: "accepted" });
    return record;
  } catch (error) {
    addToCounter("inquiries", { outcome: toErrorType(error) });
    throw error;
  }
}

/** Stores an inquiry with its mail, as {@linkcode submitInquiry} says (which counts it). */
async function storeInquiry(
  services: InquiryServices,
  fields: ContactInquiry,
  origin: InquiryOrigin,
): Promise<InquiryRecord> {
  const now = services.clock.now();
  const base = {
    id: createId(now.epochMilliseconds),
    receivedAt: now.toString(),
    fields,
    clientAddress: origin.clientAddress,
    ...(origin.userAgent ? { userAgent: origin.userAgent.slice(0, 500) } : {}),
    ...(origin.referrer ? { referrer: origin.referrer.slice(0, 1000) } : {}),
  };
  const mail = buildInquiryMail(base, services.mail);
  try {
    const operation = services.groupCommit.atomic();
    const mailIds = services.outbox.add(operation, [
      { topic: "inquiry", recordId: base.id, mail },
    ]);
    const record: InquiryRecord = { ...base, mailIds };
    services.outbox.addEvents(operation, [{ recordId: base.id, event: buildInquiryEvent(base) }]);
    operation.check({ key: [...INQUIRY_PREFIX, base.id], versionstamp: null })
      .set([...INQUIRY_PREFIX, base.id], record, { expireIn: RETENTION_DAYS * 86_400_000 });
    // A KV file locked by another process refuses the commit before writing anything.
    const result = await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
    if (!result.ok) throw new Error("Inquiry id collision");
    services.outbox.wake();
    return record;
  } catch (error) {
    services.logger.error("Could not store an inquiry", {
      error: error instanceof Error ? error.message : String(error),
    });
    throw new ApiError("no-backend", {
      status: 500,
      message: "The inquiry could not be stored",
      hint: "Retry in a few minutes, or write to the studio by e-mail",
    });
  }
}

/** What marking an inquiry did. */
export type InquiryStateOutcome =
  | { kind: "done"; record: InquiryRecord }
  | { kind: "already"; record: InquiryRecord }
  | { kind: "not-found" };

/**
 * Marks an inquiry answered or open again, keeping it as long as it was to be kept (730 days
 * from receipt). `withCommit` adds writes to the same atomic commit (the team's audit entry).
 *
 * @param services The store and the clock.
 * @param inquiryId The inquiry.
 * @param change The new state, who changes it, and writes to commit with it.
 * @returns `done`, `already` when it was in that state, or `not-found`.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function setInquiryState(
  services: { store: Store; clock: Clock },
  inquiryId: string,
  change: {
    state: InquiryState;
    actor: string;
    withCommit?: (operation: AtomicOperation) => void;
  },
): Promise<InquiryStateOutcome> {
  const { store, clock } = services;
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await store.get<InquiryRecord>([...INQUIRY_PREFIX, inquiryId]);
    const current = entry.value;
    if (!current) return { kind: "not-found" };
    if (readInquiryState(current) === change.state) return { kind: "already", record: current };
    const now = clock.now();
    const { answeredAt: _at, answeredBy: _by, ...rest } = current;
    const next: InquiryRecord = change.state === "answered"
      ? { ...rest, state: "answered", answeredAt: now.toString(), answeredBy: change.actor }
      : { ...rest, state: "open" };
    const keptUntil = Date.parse(current.receivedAt) + RETENTION_DAYS * 86_400_000;
    const operation = store.atomic().check(entry)
      .set(entry.key, next, { expireIn: Math.max(1, keptUntil - now.epochMilliseconds) });
    change.withCommit?.(operation);
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
      return { kind: "done", record: next };
    }
  }
  throw new Error("Inquiry changed concurrently too often");
}
