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
 * @module
 */
import { createId } from "../store/ids.ts";
import type { Mailer, OutgoingMail } from "./mail.ts";
import type { Clock, Logger } from "../ports.ts";
import type { AtomicOperation, KvEntry, KvKey, Store } from "../store/store.ts";
import { createGroupCommit, type GroupCommit } from "../store/group_commit.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";

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
  /** Messages sent at once. @default {4} */
  concurrency?: number;
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
  /** Delivers every due message once. Never rejects; store failures are logged. */
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

function dueKey(instant: string, id: string) {
  return [...DUE_PREFIX, Temporal.Instant.from(instant).epochMilliseconds, id] as const;
}

/** A message this process holds until `heldUntil`. */
interface Leased {
  id: string;
  key: KvKey;
  waiting: OutboxEntry;
  heldUntil: string;
  /** The versionstamp of the lease's commit: the outcome is written only while it holds. */
  versionstamp: string;
}

/** A message the due index lists: its id and its key in the index. */
interface DueItem {
  id: string;
  dueKey: KvKey;
}

/** The ports and settings the delivery steps share, resolved once per outbox. */
interface Delivery {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Outcomes of messages sent at once share a commit where they meet. */
  outcomes: GroupCommit;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
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
    retryBaseSeconds: options.retryBaseSeconds ?? 2,
    retryMaxSeconds: options.retryMaxSeconds ?? 600,
    leaseSeconds: options.leaseSeconds ?? 120,
    concurrency: options.concurrency ?? 4,
  };
}

/** How many due ids one read of the due index takes. */
const DUE_BATCH_SIZE = 64;

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
    operation.set([...OUTBOX_PREFIX, id], entry).set(dueKey(createdAt, id), id);
    return id;
  });
}

function addLease(operation: AtomicOperation, entry: KvEntry<OutboxEntry>, heldUntil: string) {
  const id = entry.value.id;
  return operation.check(entry)
    .delete(dueKey(entry.value.nextAttemptAt, id))
    .set(entry.key, { ...entry.value, nextAttemptAt: heldUntil })
    .set(dueKey(heldUntil, id), id);
}

/**
 * Reads due messages and takes a lease on each, all in one commit; when another process took
 * one of them meanwhile, the rest are leased one by one. A message held by another process,
 * or rescheduled since the due index was read, is skipped.
 */
async function lease(
  delivery: Delivery,
  items: readonly DueItem[],
  report: DeliveryReport,
): Promise<Leased[]> {
  const { store, clock } = delivery;
  const entries = await Promise.all(
    items.map(({ id }) =>
      retry(() => store.get<OutboxEntry>([...OUTBOX_PREFIX, id]), STORE_CONTENTION_RETRY)
    ),
  );
  const now = clock.now();
  const heldUntil = now.add({ seconds: delivery.leaseSeconds }).toString();
  const due: KvEntry<OutboxEntry>[] = [];
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
  const toLeased = (entry: KvEntry<OutboxEntry>, versionstamp: string): Leased => ({
    id: entry.value.id,
    key: entry.key,
    waiting: entry.value,
    heldUntil,
    versionstamp,
  });
  if (due.length > 1) {
    const together = store.atomic();
    for (const entry of due) addLease(together, entry, heldUntil);
    const result = await retry(() => together.commit(), STORE_CONTENTION_RETRY);
    if (result.ok) return due.map((entry) => toLeased(entry, result.versionstamp));
  }
  const leased = await Promise.all(due.map(async (entry) => {
    const alone = addLease(store.atomic(), entry, heldUntil);
    const result = await retry(() => alone.commit(), STORE_CONTENTION_RETRY);
    return result.ok ? toLeased(entry, result.versionstamp) : undefined;
  }));
  report.skipped += leased.filter((held) => !held).length;
  return leased.flatMap((held) => held ? [held] : []);
}

/**
 * Deletes a due-index key whose message is gone, so that it is not read again: only while the
 * message is still absent (ids are never reused, so an absent message does not come back).
 */
async function forgetDueKey(delivery: Delivery, key: KvKey, dueKey: KvKey): Promise<void> {
  const forget = delivery.store.atomic().check({ key, versionstamp: null }).delete(dueKey);
  await retry(() => forget.commit(), STORE_CONTENTION_RETRY);
}

/**
 * Handles an outcome that was not written because the message changed since this process leased
 * it: it was deleted (an erasure; its lease's due key is deleted too, as nothing else would), or
 * another process leased it again once the lease ran out and records it itself.
 */
async function forgetLost(
  delivery: Delivery,
  held: Leased,
  report: DeliveryReport,
  outcome: "sent" | "failed",
): Promise<void> {
  await forgetDueKey(delivery, held.key, dueKey(held.heldUntil, held.id));
  report.skipped++;
  delivery.logger.info("Mail left the outbox while it was being sent; its outcome is not kept", {
    id: held.id,
    topic: held.waiting.topic,
    outcome,
  });
}

/** Reschedules a message whose sending failed, each retry waiting twice as long as the last. */
async function recordFailure(
  delivery: Delivery,
  held: Leased,
  error: unknown,
  report: DeliveryReport,
): Promise<void> {
  const { id, key, waiting, heldUntil } = held;
  const attempts = waiting.attempts + 1;
  const delaySeconds = Math.min(
    delivery.retryMaxSeconds,
    delivery.retryBaseSeconds * 2 ** (attempts - 1),
  );
  const retryAt = delivery.clock.now().add({ milliseconds: Math.round(delaySeconds * 1000) })
    .toString();
  const failure = delivery.outcomes.atomic()
    .check({ key, versionstamp: held.versionstamp })
    .delete(dueKey(heldUntil, id))
    .set(key, {
      ...waiting,
      attempts,
      nextAttemptAt: retryAt,
      lastError: describe(error),
    })
    .set(dueKey(retryAt, id), id);
  if (!(await retry(() => failure.commit(), STORE_CONTENTION_RETRY)).ok) {
    return forgetLost(delivery, held, report, "failed");
  }
  report.failed++;
  delivery.logger.warn("Mail delivery failed; will retry", {
    id,
    topic: waiting.topic,
    attempts,
    retryInSeconds: delaySeconds,
    error: describe(error),
  });
}

/** Replaces a message the server accepted with its sent record. */
async function recordSent(
  delivery: Delivery,
  held: Leased,
  report: DeliveryReport,
): Promise<void> {
  const { id, key, waiting, heldUntil } = held;
  const sent: SentRecord = {
    id,
    topic: waiting.topic,
    recordId: waiting.recordId,
    to: waiting.mail.to,
    subject: waiting.mail.subject,
    sentAt: delivery.clock.now().toString(),
    attempts: waiting.attempts + 1,
  };
  // Recorded even if another process holds the file for a moment: a record lost here would
  // send the message again once the lease ends. Recorded only while the lease holds: a message
  // erased meanwhile leaves no delivery record (nor recipients and subject) behind.
  const delivered = delivery.outcomes.atomic()
    .check({ key, versionstamp: held.versionstamp })
    .delete(key).delete(dueKey(heldUntil, id))
    .set([...SENT_PREFIX, id], sent, { expireIn: SENT_RECORD_MILLISECONDS });
  if (!(await retry(() => delivered.commit(), STORE_CONTENTION_RETRY)).ok) {
    return forgetLost(delivery, held, report, "sent");
  }
  report.sent++;
  delivery.logger.info("Mail delivered", { id, topic: waiting.topic, attempts: sent.attempts });
}

/**
 * Sends a leased message and records the outcome. Outcomes of messages sent at once are
 * committed together where they meet ({@linkcode createGroupCommit}).
 */
async function deliverOne(
  delivery: Delivery,
  held: Leased,
  report: DeliveryReport,
  mailer: Mailer,
): Promise<void> {
  try {
    await mailer.send(fromStoredMail(held.waiting.mail));
  } catch (error) {
    return recordFailure(delivery, held, error, report);
  }
  return recordSent(delivery, held, report);
}

/** Leases a batch of due messages in one commit, then sends them at once. */
async function deliverBatch(
  delivery: Delivery,
  items: DueItem[],
  report: DeliveryReport,
  mailer: Mailer,
): Promise<void> {
  const { logger } = delivery;
  let leased: Leased[];
  try {
    leased = await lease(delivery, items, report);
  } catch (error) {
    for (const { id } of items) {
      logger.error("Outbox delivery failed", { id, error: describe(error) });
    }
    return;
  }
  await Promise.all(
    leased.map((held) =>
      deliverOne(delivery, held, report, mailer).catch((error) => {
        logger.error("Outbox delivery failed", { id: held.id, error: describe(error) });
      })
    ),
  );
}

/**
 * Delivers what the due index lists, `concurrency` messages at once, until nothing new is due
 * or the outbox stops; a message that failed in this pass waits for a later one.
 */
async function deliverAllDue(
  delivery: Delivery,
  mailer: Mailer,
  report: DeliveryReport,
  isStopping: () => boolean,
): Promise<void> {
  const { store, clock, concurrency } = delivery;
  const seen = new Set<string>();
  for (;;) {
    const now = clock.now().epochMilliseconds;
    const due: DueItem[] = [];
    const range = { start: [...DUE_PREFIX], end: [...DUE_PREFIX, now + 1] };
    for await (const item of store.list<string>(range, { limit: DUE_BATCH_SIZE })) {
      if (!seen.has(item.value)) due.push({ id: item.value, dueKey: item.key });
    }
    if (!due.length || isStopping()) break;
    for (const { id } of due) seen.add(id);
    for (let index = 0; index < due.length && !isStopping(); index += concurrency) {
      await deliverBatch(delivery, due.slice(index, index + concurrency), report, mailer);
    }
  }
}

/** Logs that mail waits for want of a mailer, if any does; returns whether it logged. */
async function tellMailWaits(delivery: Delivery): Promise<boolean> {
  for await (const _ of delivery.store.list({ prefix: OUTBOX_PREFIX }, { limit: 1 })) {
    delivery.logger.info("STUDIO_SMTP_URL is unset: outgoing mail waits in the outbox");
    return true;
  }
  return false;
}

/**
 * Runs delivery passes one at a time: a call while one runs asks for another after it, and while
 * started a pass follows the last one after `pollMilliseconds`.
 */
function createPassScheduler(
  pass: (isStopping: () => boolean) => Promise<DeliveryReport>,
  pollMilliseconds: number,
): Omit<Outbox, "add"> {
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

  const passes: Omit<Outbox, "add"> = {
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

/**
 * Creates the outbox over a store.
 *
 * @param options The store, mailer, clock, logger and retry settings.
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { mailer } = options;
  const delivery = toDelivery(options);
  let toldNoMailer = false;

  async function pass(isStopping: () => boolean): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, skipped: 0 };
    try {
      if (mailer) await deliverAllDue(delivery, mailer, report, isStopping);
      else if (!toldNoMailer) toldNoMailer = await tellMailWaits(delivery);
    } catch (error) {
      delivery.logger.error("Outbox delivery pass failed", { error: describe(error) });
    }
    return report;
  }

  return {
    add: (operation, messages) => addEntries(operation, messages, delivery.clock),
    ...createPassScheduler(pass, (options.pollSeconds ?? 5) * 1000),
  };
}
