/**
 * A signed link has one valid spelling (issue L1 of the re-attack): the last of a signature's 43
 * base64url characters carries two bits that are not data, and a signature whose two bits are
 * changed decodes to the same bytes; the signers refuse it, for the booking links, the reschedule
 * link and the team's sign-in link alike.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLinkSigner, fromBase64Url, toBase64Url } from "../../../lib/booking/signed_links.ts";
import { createTeamSigner } from "../../../lib/team/team_signer.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const readSecret = () => Promise.resolve("canonical-signature-test-secret-0123456789");

/** The other spellings of a signature: its last character with the same four data bits. */
function otherSpellings(signature: string): string[] {
  const last = ALPHABET.indexOf(signature.at(-1)!);
  return [1, 2, 3].map((padding) =>
    signature.slice(0, -1) + ALPHABET[(last & ~3) | ((last & 3) ^ padding)]
  );
}

test("fromBase64Url() takes only the canonical spelling of 32 bytes", () => {
  const bytes = Uint8Array.from({ length: 32 }, (_, index) => index * 7);
  const signature = toBase64Url(bytes);
  assert.deepEqual(fromBase64Url(signature), bytes);
  for (const spelling of otherSpellings(signature)) {
    assert.notEqual(spelling, signature);
    assert.equal(fromBase64Url(spelling), undefined, spelling);
  }
});

test("the booking links' and the reschedule link's signatures refuse another spelling", async () => {
  const signer = createLinkSigner(readSecret);
  const id = "01KZ0000000000000000000000";
  const signature = await signer.sign("cancel", id);
  assert.ok(await signer.verify("cancel", id, signature));
  for (const spelling of otherSpellings(signature)) {
    assert.equal(await signer.verify("cancel", id, spelling), false, spelling);
  }
  const url = new URL(await signer.buildRescheduleUrl("https://studio.example", id, 2));
  const reschedule = url.searchParams.get("sig")!;
  assert.ok(await signer.verifyReschedule(id, 2, reschedule));
  for (const spelling of otherSpellings(reschedule)) {
    assert.equal(await signer.verifyReschedule(id, 2, spelling), false, spelling);
  }
});

test("the team's sign-in signature refuses another spelling", async () => {
  const signer = createTeamSigner(readSecret);
  const signature = await signer.sign("a-sign-in-token");
  assert.ok(await signer.verify("a-sign-in-token", signature));
  for (const spelling of otherSpellings(signature)) {
    assert.equal(await signer.verify("a-sign-in-token", spelling), false, spelling);
  }
});
