import { test } from "node:test";
import assert from "node:assert/strict";
import { createHandler } from "../../../mod.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import { createRecordingLogger } from "../_support.ts";

const BASE = "http://localhost:8000";

/** Starts that are not an instant, as a forged or broken post may send them. */
const NOT_INSTANTS = [
  "x",
  "NaN",
  "1e21",
  "2026-W49-3T09:30Z",
  "２０２６-１２-０２T１０:３０:００Z",
  "2026-12-02T10:30:00",
];

test("POST /en/book and /marcar-conversa answer a start that is not an instant with the form again (400 HTML), not a 500", async () => {
  const store = createMemoryStore();
  const logger = createRecordingLogger();
  const handler = createHandler({
    baseUrl: BASE,
    store,
    mailer: createMemoryMailer(),
    logger,
    clock: createFixedClock("2026-11-26T10:00:00Z"),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    for (const path of ["/en/book", "/marcar-conversa"]) {
      for (const start of NOT_INSTANTS) {
        const body = new URLSearchParams({
          start,
          name: "Sam Taylor",
          email: "sam@example.com",
          topic: "A new website",
        });
        const response = await handler(
          new Request(BASE + path, { method: "POST", body, headers: { Origin: BASE } }),
        );
        const html = await response.text();
        assert.equal(response.status, 400, `${path} start=${start}`);
        assert.match(response.headers.get("Content-Type") ?? "", /^text\/html/, start);
        assert.match(html, /<form/, `${path} start=${start}: the form again`);
      }
    }
    assert.deepEqual(logger.records.filter((record) => record.level === "error"), []);
  } finally {
    store.close();
  }
});

test("POST /en/book twice with the same form (a double click, a resend) books once and answers both as booked", async () => {
  const store = createMemoryStore();
  const mailer = createMemoryMailer();
  const handler = createHandler({
    baseUrl: BASE,
    store,
    mailer,
    logger: createRecordingLogger(),
    clock: createFixedClock("2026-11-26T10:00:00Z"),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    const page = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
    const start = /name="start" value="([^"]+)"/.exec(page)?.[1];
    const key = /name="idempotency" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(start, "the page lists a free time");
    assert.ok(key, "the form carries its idempotency key");
    const again = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
    assert.notEqual(
      /name="idempotency" value="([^"]+)"/.exec(again)?.[1],
      key,
      "one per rendering",
    );
    const post = () =>
      handler(
        new Request(`${BASE}/en/book`, {
          method: "POST",
          headers: { Origin: BASE },
          body: new URLSearchParams({
            start,
            name: "Sam Taylor",
            email: "sam@example.com",
            topic: "A new website for our bakery",
            idempotency: key,
          }),
        }),
      );
    const first = await post();
    const firstHtml = await first.text();
    const second = await post();
    const secondHtml = await second.text();
    assert.equal(first.status, 200);
    assert.equal(second.status, 200, "the second post is answered as the first, not 409");
    assert.match(firstHtml, /<h1>/);
    assert.equal(secondHtml, firstHtml, "the same page: booked, not taken");
    const bookings = [];
    for await (const entry of store.list({ prefix: ["booking"] })) bookings.push(entry);
    assert.equal(bookings.length, 1, "one booking");
  } finally {
    store.close();
  }
});
