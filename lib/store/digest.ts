/**
 * Hexadecimal digests, for keys and fingerprints derived from text (Web Crypto's SHA-256).
 *
 * @module
 */

/**
 * Writes bytes as lower-case hexadecimal, two characters per byte.
 *
 * @param bytes The bytes.
 * @returns E.g. `"00ff10"` for `[0, 255, 16]`.
 */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The SHA-256 digest of a text's UTF-8 bytes, in hexadecimal.
 *
 * @param text The text.
 * @returns 64 hexadecimal characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "./digest.ts";
 *
 * assert.equal(
 *   await sha256Hex("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(new Uint8Array(digest));
}
