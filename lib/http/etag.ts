/**
 * Entity tags of the site's responses (RFC 9110, sections 8.8.3 and 13.1.2): computed once per
 * representation from its bytes, and the weak comparison that `If-None-Match` calls for.
 *
 * @module
 */

/**
 * Builds a strong entity tag from a representation's bytes: a 64-bit FNV-1a hash, computed
 * synchronously (the handler is built without awaiting, and Web Crypto digests are async).
 *
 * @param bytes The representation's bytes.
 * @returns A quoted entity tag, e.g. `"5f1c9a0b2d3e4f60"`.
 */
export function buildEtag(bytes: Uint8Array): string {
  // Two 32-bit FNV-1a lanes with different offsets make a 64-bit tag.
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  for (let index = 0; index < bytes.length; index++) {
    low = Math.imul(low ^ bytes[index], 0x01000193);
    high = Math.imul(high ^ bytes[index], 0x01000193) ^ (low >>> 7);
  }
  const hex = (value: number) => (value >>> 0).toString(16).padStart(8, "0");
  return `"${hex(high)}${hex(low)}"`;
}

/**
 * Whether an `If-None-Match` value matches an entity tag, by weak comparison: `*`, or any listed
 * tag equal to it once a `W/` prefix is ignored.
 *
 * @param ifNoneMatch The request's `If-None-Match` value.
 * @param etag The current entity tag (strong, quoted).
 */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === "*") return true;
  for (const candidate of ifNoneMatch.split(",")) {
    const tag = candidate.trim();
    if (tag === etag || (tag.startsWith("W/") && tag.slice(2) === etag)) return true;
  }
  return false;
}
