import { test } from "node:test";
import assert from "node:assert/strict";
import {
  parseFormValues,
  readBodyPrefix,
  readFormValues,
} from "../../../lib/http/read_form_values.ts";

const encoder = new TextEncoder();

/** A POST whose body streams `chunks`, then ends, or hangs when `hang` is set. */
function buildStreamed(chunks: string[], headers: Record<string, string>, hang = false): Request {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled < chunks.length) controller.enqueue(encoder.encode(chunks[pulled++]));
      else if (!hang) controller.close();
    },
  });
  return new Request("http://localhost/form", {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
}

/** A multipart body of text fields, with a closing delimiter unless `open`. */
function buildMultipart(fields: Array<[string, string]>, boundary: string, open = false): string {
  const parts = fields.map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  );
  return parts.join("") + (open ? "" : `--${boundary}--\r\n`);
}

test("readBodyPrefix() reads a body within the limit whole", async () => {
  const request = new Request("http://localhost/", { method: "POST", body: "a=1&b=2" });
  const { bytes, outcome } = await readBodyPrefix(request, { maxBytes: 7 });
  assert.equal(outcome, "complete");
  assert.equal(new TextDecoder().decode(bytes), "a=1&b=2");
});

test("readBodyPrefix() keeps the first maxBytes of a larger body, streamed or declared, and stops reading", async () => {
  const streamed = buildStreamed(["a=1&", "b=22", "22&c=3"], {});
  const cut = await readBodyPrefix(streamed, { maxBytes: 6 });
  assert.equal(cut.outcome, "too-large");
  assert.equal(new TextDecoder().decode(cut.bytes), "a=1&b=");
  // A declared length over the limit is read up to the limit, not refused unread.
  const declared = new Request("http://localhost/", {
    method: "POST",
    body: "x".repeat(100),
    headers: { "Content-Length": "100" },
  });
  const prefix = await readBodyPrefix(declared, { maxBytes: 10 });
  assert.equal(prefix.outcome, "too-large");
  assert.equal(prefix.bytes.byteLength, 10);
});

test("readBodyPrefix() gives up on a body that does not end in time, keeping what arrived", async () => {
  const request = buildStreamed(["name=Ana&topic=Um"], {}, true);
  const started = Date.now();
  const { bytes, outcome } = await readBodyPrefix(request, {
    maxBytes: 1000,
    timeoutMilliseconds: 200,
  });
  assert.equal(outcome, "too-slow");
  assert.ok(Date.now() - started < 2000, "within its time");
  assert.equal(new TextDecoder().decode(bytes), "name=Ana&topic=Um");
});

test("readBodyPrefix() reads nothing of a body already read", async () => {
  const request = new Request("http://localhost/", { method: "POST", body: "a=1" });
  await request.text();
  const { bytes, outcome } = await readBodyPrefix(request, { maxBytes: 10 });
  assert.equal(outcome, "unreadable");
  assert.equal(bytes.byteLength, 0);
});

test("parseFormValues() reads a urlencoded body cut in an escape up to the last whole character", () => {
  const text = "name=Z%C3%A9&topic=caf%C3%A9%20com%2";
  const { fields, complete } = parseFormValues(encoder.encode(text), {
    contentType: "application/x-www-form-urlencoded",
    outcome: "too-large",
  });
  assert.equal(complete, false);
  assert.equal(fields.get("name"), "Zé");
  assert.equal(fields.get("topic"), "café com");
});

test("parseFormValues() reads a urlencoded body that is not UTF-8, the bad byte as U+FFFD", () => {
  const bytes = new Uint8Array([...encoder.encode("name=Jos"), 0xe9, ...encoder.encode("&x=1")]);
  const { fields } = parseFormValues(bytes, {
    contentType: "application/x-www-form-urlencoded; charset=latin1",
    outcome: "complete",
  });
  assert.equal(fields.get("name"), "Jos\uFFFD");
  assert.equal(fields.get("x"), "1");
});

test("parseFormValues() reads each text field of a multipart body, repeated names in order, files left out", () => {
  const boundary = "----b0undary";
  const body = buildMultipart(
    [["Name", "Maria"], ["Name", "da Silva"], ["Email", "m@x.pt"]],
    boundary,
  )
    .replace(
      `--${boundary}--`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\nsecret\r\n--${boundary}--`,
    );
  const { fields, complete } = parseFormValues(encoder.encode(body), {
    contentType: `multipart/form-data; boundary="${boundary}"`,
    outcome: "complete",
  });
  assert.equal(complete, true);
  assert.deepEqual(fields.getAll("Name"), ["Maria", "da Silva"]);
  assert.equal(fields.get("Email"), "m@x.pt");
  assert.equal(fields.get("file"), null);
});

test("parseFormValues() keeps the last part of a cut multipart body as far as it arrived, without a cut delimiter", () => {
  const boundary = "xyz";
  const whole = buildMultipart([["Email", "m@x.pt"], ["Message", "Linha 1\r\nLinha 2"]], boundary);
  // Cut inside the closing delimiter's first characters: they are not part of the message.
  const cut = whole.slice(0, whole.indexOf(`\r\n--${boundary}--`) + 4);
  const { fields, complete } = parseFormValues(encoder.encode(cut), {
    contentType: `multipart/form-data; boundary=${boundary}`,
    outcome: "too-large",
  });
  assert.equal(complete, false);
  assert.equal(fields.get("Email"), "m@x.pt");
  assert.equal(fields.get("Message"), "Linha 1\r\nLinha 2");
  // Cut inside the message itself, in a character of two bytes.
  const bytes = encoder.encode(buildMultipart([["Message", "Olá, mundo"]], boundary, true));
  const inside = bytes.slice(0, bytes.indexOf(0xc3) + 1);
  assert.equal(
    parseFormValues(inside, {
      contentType: "multipart/form-data; boundary=xyz",
      outcome: "too-large",
    })
      .fields.get("Message"),
    "Ol",
  );
});

test("parseFormValues() finds no field in a body that is not a form, or a multipart body without a boundary", () => {
  for (const contentType of ["application/json", "text/plain", "multipart/form-data", ""]) {
    const { fields, complete } = parseFormValues(encoder.encode('{"name":"Ana"}'), {
      contentType,
      outcome: "complete",
    });
    assert.deepEqual([...fields], [], contentType);
    assert.equal(complete, false);
  }
});

test("readFormValues() reads an unread form body leniently, and lets go of a body that is not a form", async () => {
  const form = buildStreamed(
    [buildMultipart([["name", "Ana"], ["topic", "Um site"]], "b").slice(0, 80)],
    { "Content-Type": "multipart/form-data; boundary=b" },
  );
  const read = await readFormValues(form, 1000);
  assert.equal(read.fields.get("name"), "Ana");

  const json = new Request("http://localhost/", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"name":"Ana"}',
  });
  const none = await readFormValues(json, 1000);
  assert.deepEqual([...none.fields], []);
});
