/**
 * The outbox's gauges, read from the store when the meter collects (every export interval):
 * how many messages wait, and how long the oldest has waited.
 *
 * @module
 */
import type { ObservableResult } from "@opentelemetry/api";
import { DUE_PREFIX, OUTBOX_PREFIX, type OutboxEntry } from "../mail/outbox.ts";
import type { Clock } from "../ports.ts";
import type { Store } from "../store/store.ts";
import { getMeter } from "./telemetry.ts";

/** The most entries of the due index a collection counts: a bound on each collection's reads. */
export const MAX_COUNTED_MESSAGES = 10_000;

/** What {@linkcode observeOutbox} reads. */
export interface OutboxGaugeOptions {
  /** The store the outbox keeps its messages in. */
  store: Store;
  /** The clock of the oldest message's age. */
  clock: Clock;
}

/**
 * Registers the outbox's observable gauges with the meter of `@opentelemetry/api`:
 * `studio.outbox.queue.depth` (`{message}`: messages waiting for delivery, held ones included, at
 * most {@linkcode MAX_COUNTED_MESSAGES}) and `studio.outbox.oldest.age` (`s`: since the oldest
 * waiting message was queued; 0 when none waits). They are read from the store at each collection,
 * so every process sharing the store reports the same figures. A store that cannot be read
 * reports nothing that time. Without a meter provider nothing is ever read.
 *
 * @param options The store and the clock.
 * @returns Removes the gauges' callbacks (call it when the service closes its store).
 */
export function observeOutbox(options: OutboxGaugeOptions): () => void {
  const { store, clock } = options;
  const meter = getMeter();
  if (!meter) return () => {};
  const depth = meter.createObservableGauge("studio.outbox.queue.depth", {
    description: "Messages waiting in the outbox for delivery",
    unit: "{message}",
  });
  const age = meter.createObservableGauge("studio.outbox.oldest.age", {
    description: "Time since the oldest message waiting in the outbox was queued",
    unit: "s",
  });
  const observeDepth = async (result: ObservableResult) => {
    let count = 0;
    try {
      for await (const _ of store.list({ prefix: DUE_PREFIX }, { limit: MAX_COUNTED_MESSAGES })) {
        count++;
      }
    } catch {
      return;
    }
    result.observe(count);
  };
  const observeAge = async (result: ObservableResult) => {
    let oldest: OutboxEntry | undefined;
    try {
      // Entries are keyed by ULID, which sorts by creation: the first is the oldest.
      for await (const entry of store.list<OutboxEntry>({ prefix: OUTBOX_PREFIX }, { limit: 1 })) {
        oldest = entry.value;
      }
    } catch {
      return;
    }
    const nowMs = clock.now().epochMilliseconds;
    const queuedMs = oldest ? Temporal.Instant.from(oldest.createdAt).epochMilliseconds : nowMs;
    result.observe(Math.max(0, (nowMs - queuedMs) / 1000));
  };
  depth.addCallback(observeDepth);
  age.addCallback(observeAge);
  return () => {
    depth.removeCallback(observeDepth);
    age.removeCallback(observeAge);
  };
}
