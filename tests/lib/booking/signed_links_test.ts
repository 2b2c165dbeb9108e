import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeBase64Url, fromBase64Url, toBase64Url } from "../../../lib/booking/signed_links.ts";

test("toBase64Url() and decodeBase64Url() round-trip bytes of every length, padded or not", () => {
  for (let length = 0; length < 70; length++) {
    const bytes = Uint8Array.from({ length }, (_, index) => (index * 151 + length) % 256);
    const text = toBase64Url(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/);
    assert.equal(toBase64Url(bytes.buffer), text, "an ArrayBuffer alike");
    assert.deepEqual(decodeBase64Url(text), bytes);
    const padded = text.padEnd(Math.ceil(text.length / 4) * 4, "=");
    assert.deepEqual(decodeBase64Url(padded), bytes);
  }
  assert.equal(toBase64Url(new Uint8Array([0xfb, 0xff, 0xfe])), "-__-");
});

test("decodeBase64Url() refuses what is not base64url, and fromBase64Url() all but 43 characters", () => {
  for (const text of ["a+b/", "ab cd", "abcde", "ab=c", "abc===", "é"]) {
    assert.equal(decodeBase64Url(text), undefined, text);
  }
  const signature = toBase64Url(new Uint8Array(32).fill(7));
  assert.equal(signature.length, 43);
  assert.deepEqual(fromBase64Url(signature), new Uint8Array(32).fill(7));
  assert.equal(fromBase64Url(signature.slice(0, 42)), undefined);
  assert.equal(fromBase64Url(`${signature}=`), undefined);
});
