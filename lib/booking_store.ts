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
  /**
   * Every hold that ends after `fromEpochMs`. The array is the same object as long as the holds
   * are unchanged, so callers can cache what they derive from it.
   *
   * @param fromEpochMs The earliest end of interest.
   * @param options `nowEpochMs`, and `maxAgeMilliseconds`: how long a check of the version token
   * may be reused without asking the store again (0: ask now).
   * @throws Whatever the store throws.
   */
  read(
    fromEpochMs: number,
    options: { nowEpochMs: number; maxAgeMilliseconds: number },
  ): Promise<BusyInterval[]>;
  /** Forgets the cached holds, e.g. right after this process changed them. */
  forget(): void;
}

/**
 * Creates a reader of slot holds over a store, with a cache keyed by the version token: one `get`
 * per read while no booking changes (none at all within `maxAgeMilliseconds` of the last check),
 * a full read after any change (from any process).
 *
 * @param store The store.
 */
export function createHoldsReader(store: Store): HoldsReader {
  let cached:
    | { version: string | null; fromEpochMs: number; checkedAtMs: number; holds: BusyInterval[] }
    | undefined;
  return {
    async read(fromEpochMs, { nowEpochMs, maxAgeMilliseconds }) {
      if (
        cached && cached.fromEpochMs <= fromEpochMs &&
        nowEpochMs - cached.checkedAtMs < maxAgeMilliseconds
      ) return cached.holds;
      const version = (await store.get<string>(SLOTS_VERSION_KEY)).value;
      if (cached && cached.version === version && cached.fromEpochMs <= fromEpochMs) {
        cached.checkedAtMs = nowEpochMs;
        return cached.holds;
      }
      const holds: BusyInterval[] = [];
      const start = fromEpochMs - 86_400_000;
      const selector = {
        start: [...SLOT_PREFIX, start],
        end: [...SLOT_PREFIX, Number.MAX_SAFE_INTEGER],
      };
      for await (const entry of store.list<SlotHold>(selector)) {
        holds.push({ startEpochMs: entry.value.startEpochMs, endEpochMs: entry.value.endEpochMs });
      }
      cached = { version, fromEpochMs: start, checkedAtMs: nowEpochMs, holds };
      return holds;
    },
    forget() {
      cached = undefined;
    },
  };
}
