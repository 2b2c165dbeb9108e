/**
 * Version signalling of the API (spec, Versioning): `API-Version`, the `latest-version` link of
 * the unversioned aliases, and the optional deprecation notice of v1 — `Deprecation` (RFC 9745),
 * `Sunset` (RFC 8594) and a `Link` with relation `sunset` to migration notes.
 *
 * @module
 */
import { serializeItem } from "structured-headers";
import { API_VERSION } from "../contract/contract.ts";
import { isDateTime } from "../contract/text_formats.ts";
import { readOrCreateSetting } from "../store/settings.ts";
import type { Store } from "../store/store.ts";

import { MIN_SUNSET_DAYS } from "../contract/contract.ts";

/** An announcement that v1 is deprecated and when it stops. */
export interface DeprecationNotice {
  /** When v1 is deprecated: an ISO 8601 date-time with offset. */
  deprecatedAt: string;
  /** When v1 stops: an ISO 8601 date-time with offset, at least 180 days after `deprecatedAt`. */
  sunsetAt: string;
  /** Absolute URL of the migration notes. */
  migrationUrl: string;
}

/**
 * Formats one link-value of a `Link` header field (RFC 8288), for example
 * `</api/v1/health>; rel="latest-version"`.
 *
 * @param target The URI reference; must not contain `>` or whitespace.
 * @param rel The relation type.
 */
export function formatLink(target: string, rel: string): string {
  return `<${target}>; rel="${rel}"`;
}

/**
 * Checks a deprecation notice and builds the headers every `/api/` response carries:
 * `API-Version`, and with a notice `Deprecation`, `Sunset` and `Link; rel="sunset"`.
 *
 * @param notice The deprecation notice, if v1 is deprecated.
 * @returns Header name → value pairs (in order).
 * @throws {RangeError} When a date is not ISO 8601 with an offset, the sunset is less than 180
 * days after the deprecation, or the migration URL is not an absolute http(s) URL.
 */
export function buildVersionHeaders(notice?: DeprecationNotice): Array<[string, string]> {
  const headers: Array<[string, string]> = [["API-Version", API_VERSION]];
  if (!notice) return headers;
  for (
    const [name, value] of [["deprecatedAt", notice.deprecatedAt], ["sunsetAt", notice.sunsetAt]]
  ) {
    if (!isDateTime(value)) {
      throw new RangeError(
        `Invalid ${name}: "${value}" is not an ISO 8601 date-time with offset, such as "2027-01-01T00:00:00Z"`,
      );
    }
  }
  const deprecated = new Date(notice.deprecatedAt);
  const sunset = new Date(notice.sunsetAt);
  const days = (sunset.getTime() - deprecated.getTime()) / 86_400_000;
  if (days < MIN_SUNSET_DAYS) {
    throw new RangeError(
      `Invalid sunsetAt: it must be at least ${MIN_SUNSET_DAYS} days after deprecatedAt, not ${
        Math.floor(days)
      }`,
    );
  }
  let migration: URL;
  try {
    migration = new URL(notice.migrationUrl);
  } catch {
    throw new RangeError(`Invalid migrationUrl: "${notice.migrationUrl}" is not an absolute URL`);
  }
  if (migration.protocol !== "https:" && migration.protocol !== "http:") {
    throw new RangeError(`Invalid migrationUrl: "${notice.migrationUrl}" is not an http(s) URL`);
  }
  headers.push(["Deprecation", serializeItem(deprecated)]);
  headers.push(["Sunset", sunset.toUTCString()]);
  headers.push(["Link", formatLink(migration.href, "sunset")]);
  return headers;
}

/**
 * Where the instant a deprecation notice was first sent is kept, ISO 8601 UTC:
 * `["settings", "deprecation_sent", <deprecatedAt in epoch milliseconds>]` (one per deprecation,
 * so a later sunset for the same deprecation keeps the first instant).
 */
export const DEPRECATION_SENT_PREFIX = ["settings", "deprecation_sent"] as const;

/**
 * Holds spec Versioning 4 across restarts — "the previous major keeps working for at least 180
 * days after the service starts sending `Deprecation` and `Sunset` headers" — where
 * {@linkcode buildVersionHeaders} can only compare the two dates: records once in the store when
 * the service first sent this notice, and checks that the sunset is at least 180 days after the
 * later of that instant and `deprecatedAt`. So a notice configured with a `deprecatedAt` already
 * past needs a sunset 180 days after the service starts sending it, and a restart later on does
 * not move that start.
 *
 * @param store The store.
 * @param notice A notice {@linkcode buildVersionHeaders} accepted.
 * @param now The current instant.
 * @returns When the service first sent the notice, ISO 8601 UTC.
 * @throws {RangeError} `Invalid sunsetAt: …` (naming the earliest acceptable sunset) when the
 * sunset is too early.
 * @throws Whatever the store throws when it stays unavailable.
 */
export async function checkDeprecationWindow(
  store: Store,
  notice: DeprecationNotice,
  now: Temporal.Instant,
): Promise<string> {
  const deprecatedAt = Date.parse(notice.deprecatedAt);
  const key = [...DEPRECATION_SENT_PREFIX, deprecatedAt];
  const firstSent = await readOrCreateSetting(store, key, () => now.toString());
  const earliest = Math.max(deprecatedAt, Date.parse(firstSent)) + MIN_SUNSET_DAYS * 86_400_000;
  if (Date.parse(notice.sunsetAt) < earliest) {
    throw new RangeError(
      `Invalid sunsetAt: the service first sent this deprecation notice at ${firstSent}, so v1 ` +
        `keeps working at least ${MIN_SUNSET_DAYS} days from then: use ${
          new Date(earliest).toISOString()
        } or later`,
    );
  }
  return firstSent;
}
