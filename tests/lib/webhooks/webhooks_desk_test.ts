/**
 * The desk's webhooks (endpoint states, latest deliveries, test events, enabling an endpoint a
 * 410 disabled) and erasure of the webhook payloads that carry an address, against a real
 * receiver.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import type { HandlerOptions } from "../../../compose/create_handler.ts";
import { createOutbox } from "../../../lib/mail/outbox.ts";
import { erasePersonalData, exportPersonalData } from "../../../lib/privacy/personal_data.ts";
import type { Store } from "../../../lib/store/store.ts";
import { createWebhookLane, toWebhookEndpoints } from "../../../lib/webhooks/webhook_lane.ts";
import {
  WEBHOOK_DONE_PREFIX,
  WEBHOOK_DUE_PREFIX,
  WEBHOOK_OUTBOX_PREFIX,
  type WebhookDelivery,
} from "../../../lib/webhooks/webhook_store.ts";
import {
  enableWebhookEndpoint,
  readWebhooksDesk,
  sendTestEvent,
} from "../../../lib/webhooks/webhooks_desk.ts";
import { renderWebhooksDesk } from "../../../lib/webhooks/render_webhooks_desk.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import { buildBookingBody } from "../../_booking.ts";
import {
  createSampleHandler,
  createSampleServices,
  SAMPLE_SCHEDULE,
} from "../../_fixture_studio.ts";
import { buildRequest, createRecordingLogger, fromAddress } from "../../_support.ts";
import { startReceiver, type TestReceiver } from "./_receiver.ts";

const SECRET = "whsec_8KtfhAd1ehhrC6zNBSTMcU2sIBX1F7dp";
const receivers: TestReceiver[] = [];

after(async () => {
  for (const receiver of receivers) await receiver.stop();
});

async function createStudio(script: Array<number | "hold"> = []) {
  const receiver = await startReceiver(script);
  receivers.push(receiver);
  const store = createMemoryStore();
  const clock = createFixedClock(Temporal.Now.instant());
  const logger = createRecordingLogger();
  const webhooks = createWebhookLane({
    endpoints: toWebhookEndpoints([{ url: receiver.url, secret: SECRET }]),
    store,
    clock,
    logger,
  });
  const outbox = createOutbox({ store, mailer: createMemoryMailer(), clock, logger, webhooks });
  const options: HandlerOptions = {
    store,
    clock,
    logger,
    outbox,
    mailFrom: "Studio <site@studio.example>",
    inbox: "inbox@studio.example",
    team: ["rui@studio.example"],
    secret: "webhooks-desk-test-secret-0123456789abcdef",
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
  };
  const services = createSampleServices(options);
  const endpointId = outbox.webhookEndpoints()[0].id;
  return {
    receiver,
    store,
    clock,
    logger,
    outbox,
    endpointId,
    services,
    handler: createSampleHandler(options),
  };
}

type Studio = Awaited<ReturnType<typeof createStudio>>;

async function postJson(studio: Studio, path: string, body: unknown): Promise<void> {
  const response = await studio.handler(
    buildRequest(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
    fromAddress("203.0.113.7"),
  );
  assert.ok(response.status === 200 || response.status === 201, await response.clone().text());
  await response.body?.cancel();
}

async function listValues<T>(store: Store, prefix: readonly string[]): Promise<T[]> {
  const values: T[] = [];
  for await (const entry of store.list<T>({ prefix })) values.push(entry.value);
  return values;
}

async function deliver(studio: Studio): Promise<void> {
  await studio.outbox.idle();
  await studio.outbox.deliverDue();
}

const VIEW = {
  locale: "en" as const,
  timeZone: "Europe/Lisbon",
  formToken: "token-1",
  paths: { test: "/en/team/webhooks/test", enable: "/en/team/webhooks/enable" },
};

test("readWebhooksDesk() and renderWebhooksDesk() show the endpoint, its state and the latest deliveries", async () => {
  const studio = await createStudio([500]);
  await postJson(studio, "/api/v1/contact", {
    Name: "Rita Lopes",
    Email: "rita@example.pt",
    Message: "Hello.",
  });
  await deliver(studio);
  let desk = await readWebhooksDesk(studio);
  assert.deepEqual(desk.endpoints, [{
    id: studio.endpointId,
    displayUrl: `${new URL(studio.receiver.url).origin}/…`,
    state: "active",
  }]);
  assert.equal(desk.deliveries.length, 1);
  assert.equal(desk.deliveries[0].outcome, "waiting");
  assert.equal(desk.deliveries[0].lastError, "HTTP 500");
  assert.equal(desk.deliveries[0].attempts, 1);
  let html = renderWebhooksDesk(desk, VIEW);
  assert.match(html, /<code>inquiry\.received<\/code>/);
  assert.match(html, /Retrying \(HTTP 500\); next at <time/);
  assert.match(
    html,
    /<form method="post" action="\/en\/team\/webhooks\/test"><input type="hidden" name="form_token" value="token-1"><input type="hidden" name="endpoint" value="[0-9a-f]{16}"><button type="submit">Send a test event<\/button><\/form>/,
  );
  assert.equal(
    html.includes("/hooks/studio"),
    false,
    "the URL's path (often a token) is not shown",
  );

  studio.clock.advance({ seconds: 5 });
  await deliver(studio);
  desk = await readWebhooksDesk(studio);
  assert.equal(desk.deliveries[0].outcome, "delivered");
  html = renderWebhooksDesk(desk, { ...VIEW, locale: "pt" });
  assert.match(html, /Entregue \(HTTP 200\)/);
});

test("sendTestEvent() queues a signed webhook.test; a 410 disables the endpoint until enableWebhookEndpoint()", async () => {
  const studio = await createStudio([410]);
  const actor = { actor: "rui@studio.example" };
  let audited = 0;
  const sent = await sendTestEvent(studio, studio.endpointId, {
    ...actor,
    withCommit: () => audited++,
  });
  assert.equal(sent.kind, "queued");
  assert.equal(audited, 1);
  await deliver(studio);
  const [request] = studio.receiver.received;
  const payload = new Webhook(SECRET).verify(request.body, request.headers) as {
    type: string;
    data: { sentBy: string };
  };
  assert.equal(payload.type, "webhook.test");
  assert.equal(payload.data.sentBy, "rui@studio.example");
  assert.equal(request.headers["webhook-id"], sent.kind === "queued" ? sent.deliveryId : "");

  const desk = await readWebhooksDesk(studio);
  assert.equal(desk.endpoints[0].state, "disabled");
  assert.equal(desk.endpoints[0].disabledAt, studio.clock.now().toString());
  assert.equal(desk.deliveries[0].outcome, "gone");
  const html = renderWebhooksDesk(desk, VIEW);
  assert.match(html, /Disabled by a 410 \(Gone\) answer at <time/);
  assert.match(html, /action="\/en\/team\/webhooks\/enable"/);
  assert.match(html, /410: endpoint disabled/);

  assert.deepEqual(await sendTestEvent(studio, studio.endpointId, actor), { kind: "disabled" });
  assert.deepEqual(await sendTestEvent(studio, "0000000000000000", actor), { kind: "not-found" });
  assert.deepEqual(await enableWebhookEndpoint(studio, studio.endpointId, actor), {
    kind: "enabled",
  });
  assert.deepEqual(await enableWebhookEndpoint(studio, studio.endpointId, actor), {
    kind: "already-active",
  });
  assert.ok(
    studio.logger.records.some((line) => line.message === "Webhook endpoint enabled again"),
  );
  assert.equal((await sendTestEvent(studio, studio.endpointId, actor)).kind, "queued");
  await deliver(studio);
  assert.deepEqual(studio.receiver.received.map((item) => item.status), [410, 200]);
});

test("erasePersonalData() deletes the webhook payloads that carry the address and keeps the booking's cancellation", async () => {
  // The receiver is down: every delivery waits in the outbox.
  const studio = await createStudio(Array.from({ length: 50 }, () => 503));
  await postJson(studio, "/api/v1/contact", {
    Name: "Ana Erasmo",
    Email: "Ana.Erasmo@example.pt",
    Message: "Hello.",
  });
  await postJson(studio, "/api/v1/contact", {
    Name: "Rita Lopes",
    Email: "rita@example.pt",
    Message: "Hello.",
  });
  const month = Temporal.Now.plainDateISO(SAMPLE_SCHEDULE.timeZone).add({ months: 1 })
    .toPlainYearMonth().toString();
  const slots = await studio.handler(
    buildRequest(`/api/v1/booking/slots?month=${month}`),
    fromAddress("198.51.100.1"),
  );
  const { slots: days }: { slots: Record<string, Array<{ start: string }>> } = await slots.json();
  const [start] = Object.values(days).flat().map((slot) => slot.start);
  await postJson(
    studio,
    "/api/v1/booking",
    buildBookingBody(start, { name: "Ana Erasmo", email: "ana.erasmo@example.pt" }),
  );
  await deliver(studio);
  assert.equal((await listValues(studio.store, WEBHOOK_OUTBOX_PREFIX)).length, 3);

  const exported = await exportPersonalData(studio.services, "ana.erasmo@example.pt");
  assert.deepEqual(exported.webhooks.map((item) => [item.type, item.state]).sort(), [
    ["booking.confirmed", "waiting"],
    ["inquiry.received", "waiting"],
  ]);

  const record = await erasePersonalData(studio.services, "ana.erasmo@example.pt", {
    actor: "rui@studio.example",
  });
  assert.equal(record.counts.queuedWebhooks, 2);
  assert.equal(record.counts.cancelledBookings, 1);
  const left = await listValues<WebhookDelivery>(studio.store, WEBHOOK_OUTBOX_PREFIX);
  const decoder = new TextDecoder();
  const bodies = left.map((delivery) => JSON.parse(decoder.decode(delivery.payload)));
  assert.deepEqual(bodies.map((body) => body.type).sort(), [
    "booking.cancelled",
    "inquiry.received",
  ]);
  assert.equal(
    bodies.find((body) => body.type === "inquiry.received").data.email,
    "rita@example.pt",
  );
  const stored = JSON.stringify([
    ...left.map((delivery) => decoder.decode(delivery.payload)),
    ...await listValues(studio.store, WEBHOOK_DONE_PREFIX),
  ]).toLowerCase();
  assert.equal(stored.includes("ana.erasmo"), false, "no payload carries the address");
  assert.equal(
    (await listValues(studio.store, WEBHOOK_DUE_PREFIX)).length,
    2,
    "the erased deliveries' due keys are gone too",
  );
});
