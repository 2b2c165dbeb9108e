/**
 * How bookings hold their slots in the store: availability reads the holds (a held slot is not
 * offered), booking writes them in its atomic commit. The layout lives with availability, which
 * booking already builds on, so that availability needs nothing of booking.
 *
 * Keys: `["slot", startEpochMs]` holds a slot for a pending or confirmed booking; its absence is
 * what a booking's atomic check requires. `["slots_version"]` changes with every write of a hold,
 * so a process can keep the holds it read until the version changes.
 *
 * @module
 */
import type { BusyInterval } from "./availability.ts";
import type { Store } from "../store/store.ts";

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
  /**
   * For a pending booking's hold: when it lapses, epoch milliseconds; from then on the slot is
   * free (a new booking replaces the hold). Absent: held until the store deletes it.
   */
  lapsesAtEpochMs?: number;
}

/** Whether a hold still holds its slot at `nowEpochMs`. */
export function isHolding(hold: SlotHold, nowEpochMs: number): boolean {
  return hold.lapsesAtEpochMs === undefined || nowEpochMs < hold.lapsesAtEpochMs;
}

/** Reads the slot holds, reusing the last read while the store's version token is unchanged. */
export interface HoldsReader {
  /**
   * The holds that start within `span` (widened by a day on each side). The array is the same
   * object as long as the holds are unchanged, so callers can cache what they derive from it.
   *
   * @param span The time of interest, e.g. a month.
   * @param options `nowEpochMs`, and `maxAgeMilliseconds`: how long a check of the version token
   * may be reused without asking the store again (0: ask now).
   * @throws Whatever the store throws.
   */
  read(
    span: BusyInterval,
    options: { nowEpochMs: number; maxAgeMilliseconds: number },
  ): Promise<BusyInterval[]>;
  /** Forgets the cached holds, e.g. right after this process changed them. */
  forget(): void;
}

interface CachedHolds {
  version: string | null;
  checkedAtMs: number;
  holds: BusyInterval[];
  /** When the first of the listed pending holds lapses (the holds must be read again then). */
  validUntilMs: number;
}

/**
 * Creates a reader of slot holds over a store, with a cache per span keyed by the version token:
 * one `get` per read while no booking changes (none at all within `maxAgeMilliseconds` of the
 * last check), and after any change (from any process) a read of that span's holds only.
 *
 * @param store The store.
 */
export function createHoldsReader(store: Store): HoldsReader {
  const cache = new Map<string, CachedHolds>();
  return {
    async read(span, { nowEpochMs, maxAgeMilliseconds }) {
      const key = `${span.startEpochMs}:${span.endEpochMs}`;
      const cached = cache.get(key);
      const current = cached && nowEpochMs < cached.validUntilMs ? cached : undefined;
      if (current && nowEpochMs - current.checkedAtMs < maxAgeMilliseconds) return current.holds;
      const version = (await store.get<string>(SLOTS_VERSION_KEY)).value;
      if (current && current.version === version) {
        current.checkedAtMs = nowEpochMs;
        return current.holds;
      }
      const holds: BusyInterval[] = [];
      let validUntilMs = Infinity;
      const selector = {
        start: [...SLOT_PREFIX, span.startEpochMs - 86_400_000],
        end: [...SLOT_PREFIX, span.endEpochMs + 86_400_000],
      };
      for await (const entry of store.list<SlotHold>(selector)) {
        const hold = entry.value;
        if (!isHolding(hold, nowEpochMs)) continue;
        if (hold.lapsesAtEpochMs !== undefined) {
          validUntilMs = Math.min(validUntilMs, hold.lapsesAtEpochMs);
        }
        holds.push({ startEpochMs: hold.startEpochMs, endEpochMs: hold.endEpochMs });
      }
      if (cache.size >= 16) cache.clear();
      cache.set(key, { version, checkedAtMs: nowEpochMs, holds, validUntilMs });
      return holds;
    },
    forget() {
      cache.clear();
    },
  };
}
