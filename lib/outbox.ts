/**
 * The outbox: outgoing e-mail is written to the store in the same atomic commit as the record it
 * belongs to (store first, then deliver), and delivered from there with retries and backoff until
 * the mail server accepts it. It survives restarts because its state is only in the store, and
 * several processes on one store do not send a message twice: each delivery first takes a lease
 * with an atomic check.
 *
 * @module
 */
import { ulid } from "ulid";
import type { Mailer, OutgoingMail } from "./mail.ts";
import type { Clock, Logger } from "./services.ts";
import type { AtomicOperation, KvEntry, Store } from "./store.ts";

/** Key prefix of mail waiting for delivery: `["outbox", id]`. */
export const OUTBOX_PREFIX = ["outbox"] as const;

/** Key prefix of delivered mail, kept for the record: `["outbox_sent", id]`. */
export const SENT_PREFIX = ["outbox_sent"] as const;

/** How long a delivery record is kept after sending, in milliseconds (90 days). */
export const SENT_RECORD_MILLISECONDS = 90 * 24 * 3600 * 1000;

/** A message waiting in the outbox. */
export interface OutboxEntry {
  /** The entry's id (a ULID: sorts by creation time). */
  id: string;
  /** What the message is about, e.g. `inquiry` or `booking`, for operators. */
  topic: string;
  /** The record the message belongs to, e.g. the inquiry's id. */
  recordId: string;
  /** The message. */
  mail: OutgoingMail;
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
}

/** The outcome of one delivery pass. */
export interface DeliveryReport {
  /** Messages the server accepted. */
  sent: number;
  /** Messages that failed this time and wait for a retry. */
  failed: number;
  /** Messages not yet due, held by another process, or kept for want of a mailer. */
  waiting: number;
}

/** The outbox of a service. */
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
  /** Tries to deliver every due message once. Never rejects; store failures are logged. */
  deliverDue(): Promise<DeliveryReport>;
  /** Asks for a delivery pass soon, e.g. right after a commit that added messages. */
  wake(): void;
  /** Starts checking for due messages every `pollSeconds`. */
  start(): void;
  /** Stops the checks and waits for a pass in progress to finish. */
  stop(): Promise<void>;
  /** Resolves when no delivery pass is running. */
  idle(): Promise<void>;
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/**
 * Creates the outbox over a store.
 *
 * @param options The store, mailer, clock, logger and retry settings.
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { store, mailer, clock, logger } = options;
  const retryBaseSeconds = options.retryBaseSeconds ?? 2;
  const retryMaxSeconds = options.retryMaxSeconds ?? 600;
  const pollMilliseconds = (options.pollSeconds ?? 5) * 1000;
  const leaseSeconds = options.leaseSeconds ?? 120;
  let toldNoMailer = false;
  let running: Promise<DeliveryReport> | undefined;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;

  async function deliverOne(entry: KvEntry<OutboxEntry>, report: DeliveryReport): Promise<void> {
    const now = clock.now();
    const held = {
      ...entry.value,
      nextAttemptAt: now.add({ seconds: leaseSeconds }).toString(),
    };
    const lease = await store.atomic().check(entry).set(entry.key, held).commit();
    if (!lease.ok) {
      report.waiting++;
      return;
    }
    try {
      await (mailer as Mailer).send(entry.value.mail);
    } catch (error) {
      const attempts = entry.value.attempts + 1;
      const delaySeconds = Math.min(retryMaxSeconds, retryBaseSeconds * 2 ** (attempts - 1));
      const retry: OutboxEntry = {
        ...entry.value,
        attempts,
        nextAttemptAt: clock.now().add({ milliseconds: Math.round(delaySeconds * 1000) })
          .toString(),
        lastError: describe(error),
      };
      await store.set(entry.key, retry);
      report.failed++;
      logger.warn("Mail delivery failed; will retry", {
        id: entry.value.id,
        topic: entry.value.topic,
        attempts,
        retryInSeconds: delaySeconds,
        error: retry.lastError,
      });
      return;
    }
    const sent: SentRecord = {
      id: entry.value.id,
      topic: entry.value.topic,
      recordId: entry.value.recordId,
      to: entry.value.mail.to,
      subject: entry.value.mail.subject,
      sentAt: clock.now().toString(),
      attempts: entry.value.attempts + 1,
    };
    await store.atomic().delete(entry.key)
      .set([...SENT_PREFIX, entry.value.id], sent, { expireIn: SENT_RECORD_MILLISECONDS })
      .commit();
    report.sent++;
    logger.info("Mail delivered", {
      id: entry.value.id,
      topic: entry.value.topic,
      attempts: sent.attempts,
    });
  }

  async function pass(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, waiting: 0 };
    try {
      const due: KvEntry<OutboxEntry>[] = [];
      const now = clock.now();
      for await (const entry of store.list<OutboxEntry>({ prefix: OUTBOX_PREFIX })) {
        if (!mailer) {
          report.waiting++;
        } else if (
          Temporal.Instant.compare(Temporal.Instant.from(entry.value.nextAttemptAt), now) <= 0
        ) {
          due.push(entry);
        } else {
          report.waiting++;
        }
      }
      if (!mailer) {
        if (report.waiting && !toldNoMailer) {
          toldNoMailer = true;
          logger.info("STUDIO_SMTP_URL is unset: outgoing mail waits in the outbox", {
            waiting: report.waiting,
          });
        }
        return report;
      }
      for (const entry of due) await deliverOne(entry, report);
    } catch (error) {
      logger.error("Outbox delivery pass failed", { error: describe(error) });
    }
    return report;
  }

  async function run(): Promise<DeliveryReport> {
    let report = await pass();
    while (again) {
      again = false;
      report = await pass();
    }
    return report;
  }

  function schedule(): void {
    if (!started) return;
    clearTimeout(timer);
    timer = setTimeout(() => outbox.wake(), pollMilliseconds);
  }

  const outbox: Outbox = {
    add(operation, messages) {
      const createdAt = clock.now().toString();
      return messages.map(({ topic, recordId, mail }) => {
        const id = ulid(clock.now().epochMilliseconds);
        const entry: OutboxEntry = {
          id,
          topic,
          recordId,
          mail,
          createdAt,
          attempts: 0,
          nextAttemptAt: createdAt,
        };
        operation.set([...OUTBOX_PREFIX, id], entry);
        return id;
      });
    },
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
      void outbox.deliverDue();
    },
    start() {
      if (started) return;
      started = true;
      outbox.wake();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      await outbox.idle();
    },
    async idle() {
      while (running) await running;
    },
  };
  return outbox;
}
