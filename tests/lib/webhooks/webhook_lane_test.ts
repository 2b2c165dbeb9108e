import { after, test } from "node:test";
import assert from "node:assert/strict";
import type { QueuedEvent, WebhookEvent } from "../../../lib/webhooks/webhook_events.ts";
import {
  WEBHOOK_DONE_PREFIX,
  WEBHOOK_DUE_PREFIX,
  WEBHOOK_ENDPOINT_PREFIX,
  WEBHOOK_OUTBOX_PREFIX,
  type WebhookDeliveryRecord,
} from "../../../lib/webhooks/webhook_store.ts";
import { createOutbox } from "../../../lib/mail/outbox.ts";
import { createFixedClock, createMemoryStore } from "../../../testing.ts";
import { createRecordingLogger } from "../../_support.ts";
import {
  createReceiverPool,
  createWebhookOutbox,
  listValues,
  verifyWebhook,
  type WebhookOutbox,
  type WebhookOutboxOptions,
} from "./_receiver.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const receivers = createReceiverPool();
after(() => receivers.stop());

/** An outbox with one webhook endpoint: a real receiver answering `script`, then 200. */
async function setUp(
  script: Array<number | "hold"> = [],
  options: Pick<WebhookOutboxOptions, "timeoutSeconds" | "retryPeriodSeconds"> = {},
): Promise<WebhookOutbox> {
  return createWebhookOutbox({
    receiver: await receivers.start(script),
    secret: SECRET,
    ...options,
  });
}

function buildEvent(id: string, email = "ana@example.pt"): QueuedEvent {
  const event: WebhookEvent = {
    type: "inquiry.received",
    timestamp: "2026-11-21T10:00:00Z",
    data: { id, receivedAt: "2026-11-21T10:00:00Z", name: "Ana Sousa", email },
  };
  return { recordId: id, event };
}

async function enqueue(setup: WebhookOutbox, events: QueuedEvent[]): Promise<string[]> {
  const operation = setup.store.atomic();
  const ids = setup.outbox.addEvents(operation, events);
  assert.equal((await operation.commit()).ok, true);
  return ids;
}

test("createOutbox() POSTs a queued event to the endpoint, signed so that standardwebhooks verifies it", async () => {
  const setup = await setUp();
  const [id] = await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJD")]);
  assert.match(id, /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);

  const report = await setup.outbox.deliverDue();
  assert.deepEqual(report, {
    sent: 0,
    failed: 0,
    skipped: 0,
    webhooks: { delivered: 1, failed: 0, skipped: 0, dropped: 0 },
  });
  const [request] = setup.receiver.received;
  assert.equal(request.headers["content-type"], "application/json");
  assert.equal(request.headers["webhook-id"], id);
  assert.equal(
    request.headers["webhook-timestamp"],
    String(Math.floor(setup.clock.now().epochMilliseconds / 1000)),
  );
  assert.match(request.headers["webhook-signature"], /^v1,[A-Za-z0-9+/]+=*$/);
  const verified = verifyWebhook(SECRET, request);
  assert.deepEqual(verified, buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJD").event);
  assert.throws(
    () => verifyWebhook("whsec_" + btoa("another secret of 24 bytes"), request),
    /No matching signature/,
  );
  assert.throws(
    () => verifyWebhook(SECRET, { ...request, body: request.body.replace("Ana", "Eva") }),
    /No matching signature/,
  );

  const [record] = await listValues<WebhookDeliveryRecord>(setup.store, WEBHOOK_DONE_PREFIX);
  assert.equal(record.id, id);
  assert.equal(record.outcome, "delivered");
  assert.equal(record.status, 200);
  assert.equal(record.attempts, 1);
  assert.equal(record.type, "inquiry.received");
  assert.equal(JSON.stringify(record).includes("ana@example.pt"), false, "no payload kept");
  assert.deepEqual(await listValues(setup.store, WEBHOOK_OUTBOX_PREFIX), []);
  assert.deepEqual(await listValues(setup.store, WEBHOOK_DUE_PREFIX), []);
});

test("createOutbox() retries a webhook answered 500 with the same webhook-id, doubling the wait, until a 200", async () => {
  const setup = await setUp([500, 503]);
  const [id] = await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJE")]);

  assert.deepEqual((await setup.outbox.deliverDue()).webhooks?.failed, 1);
  const [waiting] = await listValues<{ attempts: number; lastError: string }>(
    setup.store,
    WEBHOOK_OUTBOX_PREFIX,
  );
  assert.equal(waiting.attempts, 1);
  assert.equal(waiting.lastError, "HTTP 500");
  assert.deepEqual((await setup.outbox.deliverDue()).webhooks?.failed, 0, "not due before 5 s");
  setup.clock.advance({ seconds: 5 });
  assert.deepEqual((await setup.outbox.deliverDue()).webhooks?.failed, 1, "503 after 5 s");
  setup.clock.advance({ seconds: 5 });
  assert.deepEqual((await setup.outbox.deliverDue()).webhooks?.delivered, 0, "next after 10 s");
  setup.clock.advance({ seconds: 5 });
  assert.deepEqual((await setup.outbox.deliverDue()).webhooks?.delivered, 1);

  const received = setup.receiver.received;
  assert.deepEqual(received.map((request) => request.status), [500, 503, 200]);
  assert.deepEqual(received.map((request) => request.headers["webhook-id"]), [id, id, id]);
  for (const request of received) verifyWebhook(SECRET, request);
  assert.notEqual(
    received[0].headers["webhook-timestamp"],
    received[2].headers["webhook-timestamp"],
    "each attempt is signed at its own time",
  );
  const [record] = await listValues<WebhookDeliveryRecord>(setup.store, WEBHOOK_DONE_PREFIX);
  assert.equal(record.attempts, 3);
  const warnings = setup.logger.records.filter((line) => line.level === "warn");
  assert.deepEqual(warnings.map((line) => line.message), [
    "Webhook delivery failed; will retry",
    "Webhook delivery failed; will retry",
  ]);
});

test("createOutbox() retries a webhook whose receiver does not answer in time", async () => {
  const setup = await setUp(["hold"], { timeoutSeconds: 0.3 });
  await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJF")]);
  assert.equal((await setup.outbox.deliverDue()).webhooks?.failed, 1);
  const [waiting] = await listValues<{ lastError: string }>(setup.store, WEBHOOK_OUTBOX_PREFIX);
  assert.equal(waiting.lastError, "timed out after 0.3 s");
  setup.clock.advance({ seconds: 5 });
  assert.equal((await setup.outbox.deliverDue()).webhooks?.delivered, 1);
  assert.equal(setup.receiver.received.length, 2);
});

test("createOutbox() disables an endpoint that answers 410, says so in the log, and drops what waits for it", async () => {
  const setup = await setUp([410]);
  const [first] = await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJG")]);
  const report = await setup.outbox.deliverDue();
  assert.deepEqual(report.webhooks, { delivered: 0, failed: 0, skipped: 0, dropped: 1 });
  const [second] = await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJH")]);
  const after410 = await setup.outbox.deliverDue();
  assert.deepEqual(after410.webhooks, { delivered: 0, failed: 0, skipped: 0, dropped: 1 });
  assert.equal(setup.receiver.received.length, 1, "nothing more is sent after the 410");

  const [state] = await listValues<{ status: number; deliveryId: string; disabledAt: string }>(
    setup.store,
    WEBHOOK_ENDPOINT_PREFIX,
  );
  assert.equal(state.status, 410);
  assert.equal(state.deliveryId, first);
  assert.equal(state.disabledAt, setup.clock.now().toString());
  const records = await listValues<WebhookDeliveryRecord>(setup.store, WEBHOOK_DONE_PREFIX);
  assert.deepEqual(
    // Queued within one millisecond of the fixed clock: their ids need not sort by order.
    records.map(({ id, outcome, attempts }) => ({ id, outcome, attempts }))
      .sort((a, b) => b.outcome.localeCompare(a.outcome)),
    [{ id: first, outcome: "gone", attempts: 1 }, { id: second, outcome: "disabled", attempts: 0 }],
  );
  const gone = setup.logger.records.find((line) => line.level === "warn");
  assert.match(gone?.message ?? "", /410 Gone and is disabled/);
  assert.equal(gone?.fields?.url, "http://127.0.0.1:" + new URL(setup.receiver.url).port + "/…");
});

test("createOutbox() gives a webhook up once it has failed for the retry period", async () => {
  const setup = await setUp([500, 500], { retryPeriodSeconds: 4 });
  await enqueue(setup, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJJ")]);
  assert.equal((await setup.outbox.deliverDue()).webhooks?.failed, 1);
  setup.clock.advance({ seconds: 5 });
  assert.equal((await setup.outbox.deliverDue()).webhooks?.dropped, 1);
  const [record] = await listValues<WebhookDeliveryRecord>(setup.store, WEBHOOK_DONE_PREFIX);
  assert.deepEqual(
    { outcome: record.outcome, attempts: record.attempts, lastError: record.lastError },
    { outcome: "expired", attempts: 2, lastError: "HTTP 500" },
  );
  assert.ok(
    setup.logger.records.some((line) => line.level === "error" && /given up/.test(line.message)),
  );
});

test("createOutbox() lets only one of two outboxes on one store send each webhook", async () => {
  const one = await setUp();
  // A second process's outbox: the same store, clock, logger and endpoint.
  const two = createWebhookOutbox({ ...one, secret: SECRET }).outbox;
  const ids = await enqueue(
    one,
    Array.from({ length: 12 }, (_, index) => buildEvent(`01KAB3N6Z9Q8W4T2R7YV5XHM${10 + index}`)),
  );
  const [a, b] = await Promise.all([one.outbox.deliverDue(), two.deliverDue()]);
  assert.equal((a.webhooks?.delivered ?? 0) + (b.webhooks?.delivered ?? 0), 12);
  const sent = one.receiver.received.map((request) => request.headers["webhook-id"]);
  assert.deepEqual([...sent].sort(), [...ids].sort(), "each webhook-id once");
});

test("createOutbox() without a webhook lane queues no events and reports mail only", async () => {
  const store = createMemoryStore();
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const outbox = createOutbox({ store, clock, logger: createRecordingLogger() });
  const operation = store.atomic();
  assert.deepEqual(outbox.addEvents(operation, [buildEvent("01KAB3N6Z9Q8W4T2R7YV5XHMJK")]), []);
  await operation.commit();
  assert.deepEqual(await listValues(store, WEBHOOK_OUTBOX_PREFIX), []);
  assert.deepEqual(outbox.webhookEndpoints(), []);
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 0, skipped: 0 });
});
