/**
 * The signature of the team's sign-in links: an HMAC-SHA-256 (Web Crypto) under the studio's
 * secret, the one that signs the booking links, over a label of its own, so that a sign-in
 * signature can never pass for a booking link's or the other way round.
 *
 * @module
 */
import { fromBase64Url, toBase64Url } from "../booking/signed_links.ts";
import { loadOnce } from "../load_once.ts";

/** Signs and checks the tokens of sign-in links with the studio's secret. */
export interface TeamSigner {
  /** The signature of a sign-in token, base64url (43 characters). */
  sign(token: string): Promise<string>;
  /** Whether `signature` is the token's (compared in constant time by `crypto.subtle.verify`). */
  verify(token: string, signature: string): Promise<boolean>;
}

const encoder = new TextEncoder();

/**
 * Creates the signer of sign-in links over a secret read once, when first needed.
 *
 * @param readSecret Resolves to the studio's secret (`STUDIO_SECRET`, or the one kept in the
 * store); a secret that cannot be read now is read again by the next signature.
 * @returns The signer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createTeamSigner } from "./team_signer.ts";
 *
 * const signer = createTeamSigner(() => Promise.resolve("a".repeat(32)));
 * const signature = await signer.sign("token");
 * assert.ok(await signer.verify("token", signature));
 * assert.ok(!await signer.verify("other", signature));
 * ```
 */
export function createTeamSigner(readSecret: () => Promise<string>): TeamSigner {
  const readKey = loadOnce(async () =>
    crypto.subtle.importKey(
      "raw",
      encoder.encode(await readSecret()),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    )
  );
  const message = (token: string) => encoder.encode(`studio-website:team-sign-in:${token}`);
  return {
    async sign(token) {
      return toBase64Url(await crypto.subtle.sign("HMAC", await readKey(), message(token)));
    },
    async verify(token, signature) {
      const bytes = fromBase64Url(signature);
      if (!bytes) return false;
      return await crypto.subtle.verify("HMAC", await readKey(), bytes, message(token));
    },
  };
}
