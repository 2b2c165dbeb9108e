/**
 * How bookings hold their slots in the store, shared by availability (which reads the holds) and
 * booking (which writes them in its atomic commit).
 *
 * Keys: `["slot", startEpochMs]` holds a slot for a pending or confirmed booking; its absence is
 * what a booking's atomic check requires. `["slots_version"]` changes with every write of a hold,
 * so a process can keep the holds it read until the version changes.
 *
 * @module
 */
import type { BusyInterval } from "./availability.ts";
import type { Store } from "./store.ts";

/** Key prefix of slot holds: `["slot", startEpochMs]`. */
export const SLOT_PREFIX = ["slot"] as const;

/** A token that changes whenever a hold is written or removed. */
export const SLOTS_VERSION_KEY = ["slots_version"] as const;

/** A held slot. */
export interface SlotHold {
  /** The booking that holds it. */
  bookingId: string;
  /** Start, epoch milliseconds. */
  startEpochMs: number;
  /** End, epoch milliseconds. */
  endEpochMs: number;
}

/** Reads the slot holds, reusing the last read while the store's version token is unchanged. */
export interface HoldsReader {
  /** Every hold that ends after `fromEpochMs`. @throws Whatever the store throws. */
  read(fromEpochMs: number): Promise<BusyInterval[]>;
}

/**
 * Creates a reader of slot holds over a store, with a cache keyed by the version token: one `get`
 * per listing while no booking changes, a full read after any change (from any process).
 *
 * @param store The store.
 */
export function createHoldsReader(store: Store): HoldsReader {
  let cached: { version: string | null; fromEpochMs: number; holds: BusyInterval[] } | undefined;
  return {
    async read(fromEpochMs) {
      const version = (await store.get<string>(SLOTS_VERSION_KEY)).value;
      if (cached && cached.version === version && cached.fromEpochMs <= fromEpochMs) {
        return cached.holds;
      }
      const holds: BusyInterval[] = [];
      const selector = {
        start: [...SLOT_PREFIX, fromEpochMs - 86_400_000],
        end: [...SLOT_PREFIX, Number.MAX_SAFE_INTEGER],
      };
      for await (const entry of store.list<SlotHold>(selector)) {
        holds.push({ startEpochMs: entry.value.startEpochMs, endEpochMs: entry.value.endEpochMs });
      }
      cached = { version, fromEpochMs: fromEpochMs - 86_400_000, holds };
      return holds;
    },
  };
}
