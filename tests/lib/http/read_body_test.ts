import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BodyError,
  createBodyReader,
  parseJsonMembers,
  readBody,
  readBounded,
  readMediaType,
} from "../../../lib/http/read_body.ts";

function streamOf(chunks: Uint8Array[], options: { hang?: boolean } = {}) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled < chunks.length) controller.enqueue(chunks[pulled++]);
      else if (!options.hang) controller.close();
    },
  });
  return { stream, pulled: () => pulled };
}

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(
    "http://localhost/x",
    { method: "POST", body, headers, duplex: "half" } as RequestInit,
  );
}

test("readBody() returns the bytes of a body within the limit", async () => {
  const bytes = await readBody(post("hello"), 5);
  assert.equal(new TextDecoder().decode(bytes), "hello");
});

test("readBody() refuses a declared Content-Length over the limit without reading", async () => {
  const { stream, pulled } = streamOf([new Uint8Array(10)]);
  const request = post(stream, { "Content-Length": "100" });
  await assert.rejects(
    readBody(request, 50),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  assert.equal(pulled(), 0);
});

test("readBody() stops a chunked body as soon as it passes the limit", async () => {
  const chunk = new Uint8Array(1024);
  const { stream, pulled } = streamOf(Array.from({ length: 1000 }, () => chunk));
  await assert.rejects(
    readBody(post(stream), 4096),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  assert.ok(pulled() <= 7, `pulled ${pulled()} chunks of 1 KiB for a 4 KiB limit`);
});

test("readBody() gives up on a body that does not arrive in time", async () => {
  const { stream } = streamOf([new Uint8Array(3)], { hang: true });
  const started = Date.now();
  await assert.rejects(
    readBody(post(stream), 1024, 150),
    (error: unknown) => error instanceof BodyError && error.problem === "too-slow",
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 140 && elapsed < 2000, `gave up after ${elapsed} ms`);
});

test("readBounded() stops a read in progress when its signal is aborted, and refuses a stream once it is", async () => {
  const controller = new AbortController();
  const { stream } = streamOf([new Uint8Array(3)], { hang: true });
  const reading = readBounded(stream, {
    maxBytes: 1024,
    timeoutMilliseconds: 60_000,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(
    reading,
    (error: unknown) => error instanceof BodyError && error.problem === "aborted",
  );
  const later = streamOf([new Uint8Array(3)]);
  await assert.rejects(
    readBounded(later.stream, { maxBytes: 1024, signal: controller.signal }),
    (error: unknown) => error instanceof BodyError && error.problem === "aborted",
  );
  assert.equal(later.pulled(), 0);
});

test("createBodyReader() gives each read its time on one shared timer", async () => {
  const read = createBodyReader({ timeoutMilliseconds: 150, checkMilliseconds: 20 });
  // A body that arrives is read whole; one that does not is given up after its time.
  const [whole, slow] = await Promise.allSettled([
    read(streamOf([new Uint8Array([1, 2]), new Uint8Array([3])]).stream, { maxBytes: 3 }),
    read(streamOf([new Uint8Array(3)], { hang: true }).stream, { maxBytes: 1024 }),
  ]);
  assert.deepEqual(whole, { status: "fulfilled", value: new Uint8Array([1, 2, 3]) });
  assert.equal(slow.status, "rejected");
  assert.ok(slow.reason instanceof BodyError && slow.reason.problem === "too-slow");
  await assert.rejects(
    read(streamOf([]).stream, { maxBytes: 10, declaredLength: "11" }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
});

test("createBodyReader() stops every read in progress when its signal is aborted, and refuses later ones", async () => {
  const controller = new AbortController();
  const read = createBodyReader({ timeoutMilliseconds: 60_000, signal: controller.signal });
  const waiting = [1, 2, 3].map(() =>
    read(streamOf([new Uint8Array(1)], { hang: true }).stream, { maxBytes: 1024 })
  );
  setTimeout(() => controller.abort(), 30);
  for (const outcome of await Promise.allSettled(waiting)) {
    assert.equal(outcome.status, "rejected");
    assert.ok(outcome.reason instanceof BodyError && outcome.reason.problem === "aborted");
  }
  await assert.rejects(
    read(streamOf([new Uint8Array(1)]).stream, { maxBytes: 10 }),
    (error: unknown) => error instanceof BodyError && error.problem === "aborted",
  );
});

test("createBodyReader() reads a request's body within its declared length whole, and one without a length as a stream, each within the limit", async () => {
  const read = createBodyReader({ timeoutMilliseconds: 60_000 });
  const declared = post("hello", { "Content-Length": "5" });
  assert.deepEqual(await read(declared, { maxBytes: 5 }), new TextEncoder().encode("hello"));
  assert.equal(declared.bodyUsed, true);
  // A body longer than it declared (only a request made in-process can be) is refused all the same.
  await assert.rejects(
    read(post("hello", { "Content-Length": "3" }), { maxBytes: 4 }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  const over = streamOf([new Uint8Array(10)]);
  await assert.rejects(
    read(post(over.stream, { "Content-Length": "10" }), { maxBytes: 9 }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  assert.equal(over.pulled(), 0);
  const chunked = streamOf(Array.from({ length: 100 }, () => new Uint8Array(1024)));
  await assert.rejects(
    read(post(chunked.stream), { maxBytes: 4096 }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  assert.ok(chunked.pulled() <= 7, `pulled ${chunked.pulled()} chunks of 1 KiB for 4 KiB`);
  // A length beside a Transfer-Encoding does not frame the body: it is counted as it streams.
  const framed = streamOf(Array.from({ length: 100 }, () => new Uint8Array(1024)));
  const headers = { "Content-Length": "10", "Transfer-Encoding": "chunked" };
  await assert.rejects(
    read(post(framed.stream, headers), { maxBytes: 4096 }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-large",
  );
  assert.ok(framed.pulled() <= 7, `pulled ${framed.pulled()} chunks of 1 KiB for 4 KiB`);
  assert.deepEqual(await read(new Request("http://localhost/"), { maxBytes: 5 }), new Uint8Array());
});

test("createBodyReader() gives up a request's body read whole when its time passes or its signal is aborted, and refuses later ones", async () => {
  const controller = new AbortController();
  const read = createBodyReader({
    timeoutMilliseconds: 150,
    checkMilliseconds: 20,
    signal: controller.signal,
  });
  const stalled = () =>
    post(streamOf([new Uint8Array(3)], { hang: true }).stream, { "Content-Length": "10" });
  const started = Date.now();
  await assert.rejects(
    read(stalled(), { maxBytes: 1024 }),
    (error: unknown) => error instanceof BodyError && error.problem === "too-slow",
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 140 && elapsed < 2000, `gave up after ${elapsed} ms`);
  const waiting = read(stalled(), { maxBytes: 1024 });
  setTimeout(() => controller.abort(), 30);
  await assert.rejects(
    waiting,
    (error: unknown) => error instanceof BodyError && error.problem === "aborted",
  );
  const later = streamOf([new Uint8Array(3)]);
  await assert.rejects(
    read(post(later.stream, { "Content-Length": "3" }), { maxBytes: 10 }),
    (error: unknown) => error instanceof BodyError && error.problem === "aborted",
  );
  assert.equal(later.pulled(), 0);
});

test("readMediaType() lower-cases the type and reads an unquoted charset", () => {
  const request = post("", { "Content-Type": 'Application/JSON; Charset="UTF-8"' });
  assert.deepEqual(readMediaType(request), { mediaType: "application/json", charset: "utf-8" });
  assert.deepEqual(readMediaType(new Request("http://localhost/")), { mediaType: "" });
});

test("parseJsonMembers() keeps named members and names each problem", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  assert.deepEqual(parseJsonMembers(encode('{"a":1,"b":2,"c":3}'), ["a", "c", "z"]), {
    ok: true,
    members: { a: 1, c: 3 },
  });
  assert.deepEqual(parseJsonMembers(encode("[1]"), ["a"]), { ok: false, problem: "shape" });
  assert.deepEqual(parseJsonMembers(encode("null"), ["a"]), { ok: false, problem: "shape" });
  assert.deepEqual(parseJsonMembers(encode("{"), ["a"]), { ok: false, problem: "syntax" });
  assert.deepEqual(parseJsonMembers(new Uint8Array([0x7b, 0xff, 0x7d]), ["a"]), {
    ok: false,
    problem: "encoding",
  });
  assert.deepEqual(parseJsonMembers(encode('{"__proto__":{"x":1}}'), ["x"]), {
    ok: true,
    members: {},
  });
});
