/**
 * The outbox: outgoing e-mail is written to the store in the same atomic commit as the record it
 * belongs to (store first, then deliver), and delivered from there with retries and backoff until
 * the mail server accepts it. It survives restarts because its state is only in the store, and
 * several processes on one store do not send a message twice: each delivery first takes a lease
 * with an atomic check. The outcome of a delivery is written only if the message is still as the
 * lease left it: a message deleted meanwhile (an erasure of personal data) stays deleted, and one
 * another process leased again after the lease ran out is that process's to record.
 *
 * Keys: `["outbox", id]` holds a waiting message; `["outbox_due", epochMilliseconds, id]` indexes
 * it by the time it is due, so a delivery pass reads only what is due; `["outbox_sent", id]`
 * records a delivered message for 90 days.
 *
 * Webhook deliveries (Standard Webhooks 1.0, `lib/webhooks/`) travel through the same outbox in a
 * lane of their own, with keys of their own (`lib/webhooks/webhook_store.ts`): queued in the
 * commit of the record they tell of, leased, retried with backoff and recorded like mail. The
 * lanes share the leases, the due index's handling and the passes, and are delivered side by
 * side, so a slow receiver does not hold mail back, nor a slow mail server webhooks.
 *
 * @module
 */
import { createId } from "../store/ids.ts";
import type { Mailer, OutgoingMail } from "./mail.ts";
import type { Clock, Logger } from "../ports.ts";
import type { AtomicOperation, KvEntry, KvKey, Store } from "../store/store.ts";
import { createGroupCommit, type GroupCommit } from "../store/group_commit.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import type { QueuedEvent } from "../webhooks/webhook_events.ts";
import type {
  WebhookDelivery,
  WebhookDeliveryRecord,
  WebhookEndpoint,
} from "../webhooks/webhook_store.ts";

/** Key prefix of mail waiting for delivery: `["outbox", id]`. */
export const OUTBOX_PREFIX = ["outbox"] as const;

/** Key prefix of the due-time index: `["outbox_due", epochMilliseconds, id]`. */
export const DUE_PREFIX = ["outbox_due"] as const;

/** Key prefix of delivered mail, kept for the record: `["outbox_sent", id]`. */
export const SENT_PREFIX = ["outbox_sent"] as const;

/** How long a delivery record is kept after sending, in milliseconds (90 days). */
export const SENT_RECORD_MILLISECONDS = 90 * 24 * 3600 * 1000;

/**
 * A message as stored: its text parts as UTF-8 bytes. Deno KV limits a value to 64 KiB of V8
 * serialisation, in which one non-Latin-1 character makes a whole string two bytes per character;
 * UTF-8 bytes keep a 5000-character inquiry with its escaped HTML copy well under the limit.
 */
export interface StoredMail
  extends Omit<OutgoingMail, "text" | "html" | "calendar" | "attachments"> {
  text: Uint8Array;
  html?: Uint8Array;
  calendar?: { method: "REQUEST" | "CANCEL"; content: Uint8Array };
  attachments?: Array<{ filename: string; contentType: string; content: Uint8Array }>;
}

/** A message waiting in the outbox. */
export interface OutboxEntry {
  /** The entry's id (a ULID: sorts by creation time). */
  id: string;
  /** What the message is about, e.g. `inquiry` or `booking`, for operators. */
  topic: string;
  /** The record the message belongs to, e.g. the inquiry's id. */
  recordId: string;
  /** The message. */
  mail: StoredMail;
  /** When it was accepted, ISO 8601 UTC. */
  createdAt: string;
  /** Failed delivery attempts so far. */
  attempts: number;
  /** When to try next (or until when a process holds it), ISO 8601 UTC. */
  nextAttemptAt: string;
  /** The last failure's message, if any. */
  lastError?: string;
}

/** What remains of a delivered message. */
export interface SentRecord {
  id: string;
  topic: string;
  recordId: string;
  to: string[];
  subject: string;
  /**
   * Its `Message-ID` (e.g. `<attendee-moved-01J…-1@studio.example>`: the kind and, for an
   * invite, its SEQUENCE), which the desk's history reads; absent in records written before it.
   */
  messageId?: string;
  /** When the server accepted it, ISO 8601 UTC. */
  sentAt: string;
  /** Attempts it took, at least 1. */
  attempts: number;
}

/** Options of {@linkcode createOutbox}. */
export interface OutboxOptions {
  /** The store that holds the outbox. */
  store: Store;
  /** The mailer; without one, mail waits in the outbox (and the log says so once). */
  mailer?: Mailer;
  /** The clock. */
  clock: Clock;
  /** The logger. */
  logger: Logger;
  /** Seconds before the first retry; each further retry waits twice as long. @default {2} */
  retryBaseSeconds?: number;
  /** The longest wait between retries, in seconds. @default {600} */
  retryMaxSeconds?: number;
  /** Seconds between checks for due mail while started. @default {5} */
  pollSeconds?: number;
  /** Seconds a process may hold a message while sending it. @default {120} */
  leaseSeconds?: number;
  /** Messages sent at once (and webhook deliveries at once, beside them). @default {4} */
  concurrency?: number;
  /**
   * The webhook lane (`lib/webhooks/webhook_lane.ts`'s `createWebhookLane`); without one, no
   * webhook events are queued. @default {none}
   */
  webhooks?: WebhookLane;
}

/**
 * The webhook lane of an outbox: the endpoints, how events are queued for them, and how one
 * delivery is attempted.
 */
export interface WebhookLane extends OutboxLane<WebhookDelivery, WebhookDeliveryRecord> {
  /** The configured endpoints. */
  endpoints: readonly WebhookEndpoint[];
  /**
   * Adds one delivery per event and endpoint to `operation`, due at once.
   *
   * @returns The deliveries' ids (their `webhook-id`).
   */
  add(operation: AtomicOperation, events: readonly QueuedEvent[]): string[];
}

/** What one delivery pass did with webhook deliveries. */
export interface WebhookDeliveryReport {
  /** Deliveries answered 2xx. */
  delivered: number;
  /** Deliveries that failed this time and wait for a retry. */
  failed: number;
  /** Deliveries another process held, or that left the outbox while being sent. */
  skipped: number;
  /** Deliveries given up: answered 410, to a disabled or removed endpoint, or past the retries. */
  dropped: number;
}

/** The outcome of one delivery pass. */
export interface DeliveryReport {
  /** Messages the server accepted. */
  sent: number;
  /** Messages that failed this time and wait for a retry. */
  failed: number;
  /**
   * Due messages another process held, and messages that left the outbox (erased, or leased
   * again by another process) while this one was sending them.
   */
  skipped: number;
  /** What the pass did with webhook deliveries; present when webhooks are configured. */
  webhooks?: WebhookDeliveryReport;
}

/**
 * How long after it starts the service first looks for mail an earlier run left due: a second,
 * so that a cold start's first requests do not share the process with a delivery pass.
 */
export const OUTBOX_START_DELAY_MILLISECONDS = 1000;

/**
 * The outbox of a service: outgoing e-mail, committed with the record it belongs to and delivered
 * from the store with retries (see {@linkcode createOutbox}).
 */
export interface Outbox {
  /**
   * Adds messages to an atomic operation, so they commit with the record they belong to.
   *
   * @param operation The operation that writes the record.
   * @param messages The messages, with the topic and record they belong to.
   * @returns The new entries' ids.
   */
  add(
    operation: AtomicOperation,
    messages: Array<{ topic: string; recordId: string; mail: OutgoingMail }>,
  ): string[];
  /**
   * Adds webhook events to an atomic operation, one delivery per configured endpoint (or per
   * endpoint the event names), so they commit with the record they tell of. Without webhooks
   * configured it adds nothing.
   *
   * @param operation The operation that writes the record.
   * @param events The events.
   * @returns The deliveries' ids (each one's `webhook-id`).
   */
  addEvents(operation: AtomicOperation, events: readonly QueuedEvent[]): string[];
  /** The webhook endpoints events go to (none when webhooks are not configured). */
  webhookEndpoints(): ReadonlyArray<{ id: string; url: string }>;
  /** Delivers every due message and webhook delivery once. Never rejects; failures are logged. */
  deliverDue(): Promise<DeliveryReport>;
  /** Asks for a delivery pass soon, e.g. right after a commit that added messages. */
  wake(): void;
  /**
   * Starts checking for due messages every `pollSeconds`.
   *
   * @param firstPassInMilliseconds When the first check runs: at once by default; the service
   * waits {@linkcode OUTBOX_START_DELAY_MILLISECONDS}, so that delivering what an earlier run left
   * does not slow its first requests (a commit that adds messages wakes the outbox at once).
   */
  start(firstPassInMilliseconds?: number): void;
  /** Stops the checks and waits for the messages being sent; the rest stay due for next time. */
  stop(): Promise<void>;
  /** Resolves when no delivery pass is running. */
  idle(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Converts a message to its stored form (text parts as UTF-8). */
export function toStoredMail(mail: OutgoingMail): StoredMail {
  const { text, html, calendar, attachments, ...headers } = mail;
  const stored: StoredMail = { ...headers, text: encoder.encode(text) };
  if (html !== undefined) stored.html = encoder.encode(html);
  if (calendar) {
    stored.calendar = { method: calendar.method, content: encoder.encode(calendar.content) };
  }
  if (attachments) {
    stored.attachments = attachments.map((attachment) => ({
      ...attachment,
      content: encoder.encode(attachment.content),
    }));
  }
  return stored;
}

/** Converts a stored message back to the message that was accepted. */
export function fromStoredMail(mail: StoredMail): OutgoingMail {
  const { text, html, calendar, attachments, ...headers } = mail;
  const result: OutgoingMail = { ...headers, text: decoder.decode(text) };
  if (html) result.html = decoder.decode(html);
  if (calendar) {
    result.calendar = { method: calendar.method, content: decoder.decode(calendar.content) };
  }
  if (attachments) {
    result.attachments = attachments.map((attachment) => ({
      ...attachment,
      content: decoder.decode(attachment.content),
    }));
  }
  return result;
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/** A log line an attempt's outcome asks for. */
export interface OutcomeLogLine {
  level: "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

/** How one attempt to deliver an item ended. */
export type AttemptOutcome<D> =
  /**
   * Finished: the item leaves the outbox and `record` is kept under the lane's done prefix.
   * `counted` says whether it reached its recipient (`sent`) or was given up (`dropped`);
   * `withCommit` adds writes to the outcome's commit (a webhook endpoint disabled by a 410).
   */
  | {
    kind: "done";
    record: D;
    counted: "sent" | "dropped";
    log: OutcomeLogLine;
    withCommit?: (operation: AtomicOperation) => void;
  }
  /** Failed: tried again after the backoff, `error` kept as the item's `lastError`. */
  | { kind: "retry"; error: string };

/**
 * A kind of delivery the outbox carries (mail, webhook deliveries): its keys, its retries, how
 * one attempt is made. The leases, the due index and the backoff are the outbox's, shared by every
 * lane, so several processes on one store deliver each item of any lane once (at least once, if a
 * process dies after the recipient accepted and before the outcome was written).
 */
export interface OutboxLane<T extends QueuedItem, D> {
  /** `Mail` or `Webhook`: the first word of the lane's log lines. */
  noun: string;
  /** Waiting items: `[...waitingPrefix, id]`. */
  waitingPrefix: KvKey;
  /** The due index: `[...duePrefix, epochMilliseconds, id]`. */
  duePrefix: KvKey;
  /** Finished items' records: `[...donePrefix, id]`. */
  donePrefix: KvKey;
  /** How long a finished item's record is kept, in milliseconds. */
  doneMilliseconds: number;
  /** Seconds before the first retry; each further retry waits twice as long. */
  retryBaseSeconds: number;
  /** The longest wait between retries, in seconds. */
  retryMaxSeconds: number;
  /** The fields that name an item in the log, besides its id (e.g. its topic). */
  describe(item: T): Record<string, unknown>;
  /**
   * Makes one attempt. Never rejects: a failure is an outcome (`retry`, or `done` when the
   * lane gives the item up).
   */
  attempt(item: T): Promise<AttemptOutcome<D>>;
}

/** What every queued item has, mail or webhook delivery. */
export interface QueuedItem {
  id: string;
  createdAt: string;
  attempts: number;
  nextAttemptAt: string;
  lastError?: string;
}

/** What one lane's pass did; `dropped`: items given up (mail is never given up). */
interface Tally extends DeliveryReport {
  dropped: number;
}

// deno-lint-ignore no-explicit-any -- the lane's item and record types do not matter here
type AnyLane = OutboxLane<any, unknown>;

function dueKey(lane: { duePrefix: KvKey }, instant: string, id: string) {
  return [...lane.duePrefix, Temporal.Instant.from(instant).epochMilliseconds, id] as const;
}

/** An item this process holds until `heldUntil`. */
interface Leased {
  id: string;
  key: KvKey;
  waiting: QueuedItem;
  heldUntil: string;
  /** The versionstamp of the lease's commit: the outcome is written only while it holds. */
  versionstamp: string;
}

/** An item the due index lists: its id and its key in the index. */
interface DueItem {
  id: string;
  dueKey: KvKey;
}

/** The ports and settings the delivery steps share, resolved once per outbox. */
interface Delivery {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Outcomes of items sent at once share a commit where they meet. */
  outcomes: GroupCommit;
  leaseSeconds: number;
  concurrency: number;
}

/** The outbox's options with their defaults, as the delivery steps take them. */
function toDelivery(options: OutboxOptions): Delivery {
  const { store, clock, logger } = options;
  return {
    store,
    clock,
    logger,
    outcomes: createGroupCommit(store),
    leaseSeconds: options.leaseSeconds ?? 120,
    concurrency: options.concurrency ?? 4,
  };
}

/** How many due ids one read of the due index takes. */
const DUE_BATCH_SIZE = 64;

/** The keys of the mail lane's due index. */
const MAIL_KEYS = { duePrefix: DUE_PREFIX } as const;

/** Adds messages to `operation` as new entries, due at once. */
function addEntries(
  operation: AtomicOperation,
  messages: Array<{ topic: string; recordId: string; mail: OutgoingMail }>,
  clock: Clock,
): string[] {
  const createdAt = clock.now().toString();
  return messages.map(({ topic, recordId, mail }) => {
    const id = createId(clock.now().epochMilliseconds);
    const entry: OutboxEntry = {
      id,
      topic,
      recordId,
      mail: toStoredMail(mail),
      createdAt,
      attempts: 0,
      nextAttemptAt: createdAt,
    };
    operation.set([...OUTBOX_PREFIX, id], entry).set(dueKey(MAIL_KEYS, createdAt, id), id);
    return id;
  });
}

function addLease(
  lane: AnyLane,
  operation: AtomicOperation,
  entry: KvEntry<QueuedItem>,
  heldUntil: string,
) {
  const id = entry.value.id;
  return operation.check(entry)
    .delete(dueKey(lane, entry.value.nextAttemptAt, id))
    .set(entry.key, { ...entry.value, nextAttemptAt: heldUntil })
    .set(dueKey(lane, heldUntil, id), id);
}

/** Reads the items the due index lists, forgetting the due keys of those that are gone. */
async function readDue(
  delivery: Delivery,
  lane: AnyLane,
  items: readonly DueItem[],
  report: Tally,
): Promise<KvEntry<QueuedItem>[]> {
  const { store, clock } = delivery;
  const entries = await Promise.all(
    items.map(({ id }) =>
      retry(() => store.get<QueuedItem>([...lane.waitingPrefix, id]), STORE_CONTENTION_RETRY)
    ),
  );
  const now = clock.now();
  const due: KvEntry<QueuedItem>[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.value === null) {
      // Delivered meanwhile by another process, or erased while being sent.
      await forgetDueKey(delivery, entry.key, items[index].dueKey);
      continue;
    }
    if (Temporal.Instant.compare(Temporal.Instant.from(entry.value.nextAttemptAt), now) > 0) {
      report.skipped++; // Leased (or rescheduled) by another process since the index was read.
      continue;
    }
    due.push(entry);
  }
  return due;
}

/**
 * Reads due items and takes a lease on each, all in one commit; when another process took
 * one of them meanwhile, the rest are leased one by one. An item held by another process,
 * or rescheduled since the due index was read, is skipped.
 */
async function lease(
  delivery: Delivery,
  lane: AnyLane,
  items: readonly DueItem[],
  report: Tally,
): Promise<Leased[]> {
  const { store, clock } = delivery;
  const due = await readDue(delivery, lane, items, report);
  const heldUntil = clock.now().add({ seconds: delivery.leaseSeconds }).toString();
  const toLeased = (entry: KvEntry<QueuedItem>, versionstamp: string): Leased => ({
    id: entry.value.id,
    key: entry.key,
    waiting: entry.value,
    heldUntil,
    versionstamp,
  });
  if (due.length > 1) {
    const together = store.atomic();
    for (const entry of due) addLease(lane, together, entry, heldUntil);
    const result = await retry(() => together.commit(), STORE_CONTENTION_RETRY);
    if (result.ok) return due.map((entry) => toLeased(entry, result.versionstamp));
  }
  const leased = await Promise.all(due.map(async (entry) => {
    const alone = addLease(lane, store.atomic(), entry, heldUntil);
    const result = await retry(() => alone.commit(), STORE_CONTENTION_RETRY);
    return result.ok ? toLeased(entry, result.versionstamp) : undefined;
  }));
  report.skipped += leased.filter((held) => !held).length;
  return leased.flatMap((held) => held ? [held] : []);
}

/**
 * Deletes a due-index key whose item is gone, so that it is not read again: only while the
 * item is still absent (ids are never reused, so an absent item does not come back).
 */
async function forgetDueKey(delivery: Delivery, key: KvKey, dueKey: KvKey): Promise<void> {
  const forget = delivery.store.atomic().check({ key, versionstamp: null }).delete(dueKey);
  await retry(() => forget.commit(), STORE_CONTENTION_RETRY);
}

/**
 * Handles an outcome that was not written because the item changed since this process leased
 * it: it was deleted (an erasure; its lease's due key is deleted too, as nothing else would), or
 * another process leased it again once the lease ran out and records it itself.
 */
async function forgetLost(
  delivery: Delivery,
  lane: AnyLane,
  held: Leased,
  report: Tally,
  outcome: "sent" | "failed",
): Promise<void> {
  await forgetDueKey(delivery, held.key, dueKey(lane, held.heldUntil, held.id));
  report.skipped++;
  delivery.logger.info(
    `${lane.noun} left the outbox while it was being sent; its outcome is not kept`,
    { id: held.id, ...lane.describe(held.waiting), outcome },
  );
}

/** Reschedules an item whose attempt failed, each retry waiting twice as long as the last. */
async function recordFailure(
  delivery: Delivery,
  lane: AnyLane,
  held: Leased,
  error: string,
  report: Tally,
): Promise<void> {
  const { id, key, waiting, heldUntil } = held;
  const attempts = waiting.attempts + 1;
  const delaySeconds = Math.min(
    lane.retryMaxSeconds,
    lane.retryBaseSeconds * 2 ** (attempts - 1),
  );
  const retryAt = delivery.clock.now().add({ milliseconds: Math.round(delaySeconds * 1000) })
    .toString();
  const failure = delivery.outcomes.atomic()
    .check({ key, versionstamp: held.versionstamp })
    .delete(dueKey(lane, heldUntil, id))
    .set(key, { ...waiting, attempts, nextAttemptAt: retryAt, lastError: error })
    .set(dueKey(lane, retryAt, id), id);
  if (!(await retry(() => failure.commit(), STORE_CONTENTION_RETRY)).ok) {
    return forgetLost(delivery, lane, held, report, "failed");
  }
  report.failed++;
  delivery.logger.warn(`${lane.noun} delivery failed; will retry`, {
    id,
    ...lane.describe(waiting),
    attempts,
    retryInSeconds: delaySeconds,
    error,
  });
}

/** Replaces a finished item with the record of its outcome. */
async function recordDone(
  delivery: Delivery,
  lane: AnyLane,
  held: Leased,
  outcome: Extract<AttemptOutcome<unknown>, { kind: "done" }>,
  report: Tally,
): Promise<void> {
  const { id, key, heldUntil } = held;
  // Recorded even if another process holds the file for a moment: a record lost here would
  // send the item again once the lease ends. Recorded only while the lease holds: an item
  // erased meanwhile leaves no record (nor recipients and subject) behind.
  const done = delivery.outcomes.atomic()
    .check({ key, versionstamp: held.versionstamp })
    .delete(key).delete(dueKey(lane, heldUntil, id))
    .set([...lane.donePrefix, id], outcome.record, { expireIn: lane.doneMilliseconds });
  outcome.withCommit?.(done);
  if (!(await retry(() => done.commit(), STORE_CONTENTION_RETRY)).ok) {
    return forgetLost(delivery, lane, held, report, "sent");
  }
  if (outcome.counted === "sent") report.sent++;
  else report.dropped++;
  const { level, message, fields } = outcome.log;
  delivery.logger[level](message, fields);
}

/**
 * Makes a leased item's attempt and records the outcome. Outcomes of items sent at once are
 * committed together where they meet ({@linkcode createGroupCommit}).
 */
async function deliverOne(
  delivery: Delivery,
  lane: AnyLane,
  held: Leased,
  report: Tally,
): Promise<void> {
  const outcome = await lane.attempt(held.waiting);
  if (outcome.kind === "retry") return recordFailure(delivery, lane, held, outcome.error, report);
  return recordDone(delivery, lane, held, outcome, report);
}

/** Leases a batch of due items in one commit, then sends them at once. */
async function deliverBatch(
  delivery: Delivery,
  lane: AnyLane,
  items: DueItem[],
  report: Tally,
): Promise<void> {
  const { logger } = delivery;
  let leased: Leased[];
  try {
    leased = await lease(delivery, lane, items, report);
  } catch (error) {
    for (const { id } of items) {
      logger.error("Outbox delivery failed", { id, error: describe(error) });
    }
    return;
  }
  await Promise.all(
    leased.map((held) =>
      deliverOne(delivery, lane, held, report).catch((error) => {
        logger.error("Outbox delivery failed", { id: held.id, error: describe(error) });
      })
    ),
  );
}

/**
 * Delivers what a lane's due index lists, `concurrency` items at once, until nothing new is due
 * or the outbox stops; an item that failed in this pass waits for a later one.
 */
async function deliverAllDue(
  delivery: Delivery,
  lane: AnyLane,
  report: Tally,
  isStopping: () => boolean,
): Promise<void> {
  const { store, clock, concurrency } = delivery;
  const seen = new Set<string>();
  for (;;) {
    const now = clock.now().epochMilliseconds;
    const due: DueItem[] = [];
    const range = { start: [...lane.duePrefix], end: [...lane.duePrefix, now + 1] };
    for await (const item of store.list<string>(range, { limit: DUE_BATCH_SIZE })) {
      if (!seen.has(item.value)) due.push({ id: item.value, dueKey: item.key });
    }
    if (!due.length || isStopping()) break;
    for (const { id } of due) seen.add(id);
    for (let index = 0; index < due.length && !isStopping(); index += concurrency) {
      await deliverBatch(delivery, lane, due.slice(index, index + concurrency), report);
    }
  }
}

/** The mail lane: a message is sent through the mailer, retried until the server accepts it. */
function createMailLane(
  options: OutboxOptions,
  mailer: Mailer,
): OutboxLane<OutboxEntry, SentRecord> {
  const { clock } = options;
  return {
    noun: "Mail",
    waitingPrefix: OUTBOX_PREFIX,
    duePrefix: DUE_PREFIX,
    donePrefix: SENT_PREFIX,
    doneMilliseconds: SENT_RECORD_MILLISECONDS,
    retryBaseSeconds: options.retryBaseSeconds ?? 2,
    retryMaxSeconds: options.retryMaxSeconds ?? 600,
    describe: (entry) => ({ topic: entry.topic }),
    async attempt(entry) {
      try {
        await mailer.send(fromStoredMail(entry.mail));
      } catch (error) {
        return { kind: "retry", error: describe(error) };
      }
      const record: SentRecord = {
        id: entry.id,
        topic: entry.topic,
        recordId: entry.recordId,
        to: entry.mail.to,
        subject: entry.mail.subject,
        ...(entry.mail.messageId ? { messageId: entry.mail.messageId } : {}),
        sentAt: clock.now().toString(),
        attempts: entry.attempts + 1,
      };
      return {
        kind: "done",
        record,
        counted: "sent",
        log: {
          level: "info",
          message: "Mail delivered",
          fields: { id: entry.id, topic: entry.topic, attempts: record.attempts },
        },
      };
    },
  };
}

/** Logs that mail waits for want of a mailer, if any does; returns whether it logged. */
async function tellMailWaits(delivery: Delivery): Promise<boolean> {
  for await (const _ of delivery.store.list({ prefix: OUTBOX_PREFIX }, { limit: 1 })) {
    delivery.logger.info("STUDIO_SMTP_URL is unset: outgoing mail waits in the outbox");
    return true;
  }
  return false;
}

/** The outbox's passes: what it does besides queueing. */
type Scheduler = Omit<Outbox, "add" | "addEvents" | "webhookEndpoints">;

/**
 * Runs delivery passes one at a time: a call while one runs asks for another after it, and while
 * started a pass follows the last one after `pollMilliseconds`.
 */
function createPassScheduler(
  pass: (isStopping: () => boolean) => Promise<DeliveryReport>,
  pollMilliseconds: number,
): Scheduler {
  let running: Promise<DeliveryReport> | undefined;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopping = false;
  const isStopping = () => stopping;

  async function run(): Promise<DeliveryReport> {
    let report = await pass(isStopping);
    while (again) {
      again = false;
      report = await pass(isStopping);
    }
    return report;
  }

  function schedule(): void {
    if (!started) return;
    clearTimeout(timer);
    timer = setTimeout(() => passes.wake(), pollMilliseconds);
  }

  const passes: Scheduler = {
    deliverDue() {
      if (running) {
        again = true;
        return running;
      }
      running = run().finally(() => {
        running = undefined;
        schedule();
      });
      return running;
    },
    wake() {
      void passes.deliverDue();
    },
    start(firstPassInMilliseconds = 0) {
      if (started) return;
      started = true;
      if (firstPassInMilliseconds > 0) {
        // AbortSignal.timeout rather than setTimeout: Deno's global setTimeout loads Node's timers
        // module on first use, which a cold start would load before its first request.
        AbortSignal.timeout(firstPassInMilliseconds).addEventListener("abort", () => {
          if (started) passes.wake();
        });
      } else passes.wake();
    },
    async stop() {
      // Messages not begun stay due in the store for the next start; those being sent finish.
      stopping = true;
      started = false;
      clearTimeout(timer);
      await passes.idle();
      stopping = false;
    },
    async idle() {
      while (running) await running;
    },
  };
  return passes;
}

/** Runs one lane's pass on a tally of its own. */
async function passLane(
  delivery: Delivery,
  lane: AnyLane,
  isStopping: () => boolean,
): Promise<Tally> {
  const tally: Tally = { sent: 0, failed: 0, skipped: 0, dropped: 0 };
  try {
    await deliverAllDue(delivery, lane, tally, isStopping);
  } catch (error) {
    delivery.logger.error("Outbox delivery pass failed", { error: describe(error) });
  }
  return tally;
}

/**
 * Creates the outbox over a store: mail, and webhook deliveries when a webhook lane is given.
 *
 * @param options The store, mailer, clock, logger, retry settings and webhook lane.
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { mailer, webhooks } = options;
  const delivery = toDelivery(options);
  const mail = mailer ? createMailLane(options, mailer) : undefined;
  let toldNoMailer = false;

  async function pass(isStopping: () => boolean): Promise<DeliveryReport> {
    const waitingMail = async () => {
      if (!toldNoMailer) toldNoMailer = await tellMailWaits(delivery);
    };
    const [mailTally, webhookTally] = await Promise.all([
      mail
        ? passLane(delivery, mail, isStopping)
        : waitingMail().catch((error) =>
          delivery.logger.error("Outbox delivery pass failed", { error: describe(error) })
        ).then(() => undefined),
      webhooks ? passLane(delivery, webhooks, isStopping) : undefined,
    ]);
    const report: DeliveryReport = {
      sent: mailTally?.sent ?? 0,
      failed: mailTally?.failed ?? 0,
      skipped: mailTally?.skipped ?? 0,
    };
    if (webhookTally) {
      const { sent: delivered, failed, skipped, dropped } = webhookTally;
      report.webhooks = { delivered, failed, skipped, dropped };
    }
    return report;
  }

  return {
    add: (operation, messages) => addEntries(operation, messages, delivery.clock),
    addEvents: (operation, events) => webhooks?.add(operation, events) ?? [],
    webhookEndpoints: () => webhooks?.endpoints.map(({ id, url }) => ({ id, url })) ?? [],
    ...createPassScheduler(pass, (options.pollSeconds ?? 5) * 1000),
  };
}
