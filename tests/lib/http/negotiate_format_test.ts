import { test } from "node:test";
import assert from "node:assert/strict";
import { negotiateFormat } from "../../../lib/http/negotiate_format.ts";
import { buildEtag, matchesEtag } from "../../../lib/http/etag.ts";

test("negotiateFormat() prefers HTML without Accept, on ties and when nothing fits", async () => {
  assert.equal(await negotiateFormat(null), "html");
  assert.equal(await negotiateFormat(""), "html");
  assert.equal(await negotiateFormat("*/*"), "html");
  assert.equal(await negotiateFormat("text/*"), "html");
  assert.equal(await negotiateFormat("image/png"), "html");
  assert.equal(await negotiateFormat("text/markdown;q=0"), "html");
  assert.equal(await negotiateFormat("text/html, text/markdown"), "html");
});

test("negotiateFormat() chooses Markdown when its q-value or specificity wins", async () => {
  assert.equal(await negotiateFormat("text/markdown"), "markdown");
  assert.equal(await negotiateFormat("text/markdown;charset=utf-8"), "markdown");
  assert.equal(await negotiateFormat("text/markdown, text/html;q=0.9"), "markdown");
  assert.equal(await negotiateFormat("text/markdown;q=0.1, text/html"), "html");
  assert.equal(
    await negotiateFormat("text/plain;q=0.4, text/markdown;q=0.5, */*;q=0.1"),
    "markdown",
  );
  assert.equal(await negotiateFormat("text/html;q=0, */*"), "markdown");
});

test("negotiateFormat() chooses the Markdown as plain text when text/plain wins", async () => {
  assert.equal(await negotiateFormat("text/plain"), "text");
  assert.equal(await negotiateFormat("text/plain, text/markdown;q=0.5, */*;q=0.1"), "text");
  assert.equal(await negotiateFormat("text/plain;q=0.5, text/html"), "html");
});

test("negotiateFormat() stays right when thousands of distinct Accept values arrive", async () => {
  for (let index = 0; index < 2000; index++) {
    assert.equal(
      await negotiateFormat(`text/markdown;q=0.${index % 9 + 1}, text/x-${index}`),
      "markdown",
    );
  }
  assert.equal(await negotiateFormat("text/markdown;q=0.1, text/html"), "html");
});

test("buildEtag() tags equal bytes equally and different bytes differently", () => {
  const encoder = new TextEncoder();
  const a = buildEtag(encoder.encode("Olá"));
  assert.match(a, /^"[0-9a-f]{16}"$/);
  assert.equal(buildEtag(encoder.encode("Olá")), a);
  assert.notEqual(buildEtag(encoder.encode("Ola")), a);
  assert.notEqual(buildEtag(new Uint8Array()), buildEtag(new Uint8Array([0])));
});

test("matchesEtag() compares weakly, in lists and with *", () => {
  const etag = '"0123456789abcdef"';
  assert.equal(matchesEtag(etag, etag), true);
  assert.equal(matchesEtag(`W/${etag}`, etag), true);
  assert.equal(matchesEtag(`"x", ${etag}`, etag), true);
  assert.equal(matchesEtag(" * ", etag), true);
  assert.equal(matchesEtag('"0123456789abcdee"', etag), false);
  assert.equal(matchesEtag("0123456789abcdef", etag), false, "unquoted is not the same tag");
});

test("negotiateFormat() answers as negotiator does for any Accept, fast path included", async () => {
  const { default: fc } = await import("fast-check");
  const { default: Negotiator } = await import("negotiator");
  const offered = ["text/html", "text/markdown", "text/markdown;charset=utf-8", "text/plain"];
  const expected = (accept: string) => {
    const chosen = new Negotiator({ headers: { accept } }).mediaType(offered);
    return chosen?.startsWith("text/markdown")
      ? "markdown"
      : chosen === "text/plain"
      ? "text"
      : "html";
  };
  const range = fc.constantFrom(
    "text/html",
    "text/markdown",
    "text/plain",
    "text/*",
    "*/*",
    "application/xhtml+xml",
    "application/xml",
    "image/avif",
    "application/json",
    "TEXT/HTML",
  );
  const weight = fc.constantFrom("", ";q=1", ";q=0.9", ";q=0.5", ";q=0.1", ";q=0", ";level=1");
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(range, weight), { minLength: 1, maxLength: 5 }),
      async (items) => {
        const accept = items.map(([type, parameter]) => type + parameter).join(", ");
        assert.equal(await negotiateFormat(accept), expected(accept), accept);
      },
    ),
    { numRuns: 2000 },
  );
});
