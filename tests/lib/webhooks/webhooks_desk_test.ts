/**
 * The desk's webhooks (endpoint states, latest deliveries, test events, enabling an endpoint a
 * 410 disabled) and erasure of the webhook payloads that carry an address, against a real
 * receiver.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { erasePersonalData, exportPersonalData } from "../../../lib/privacy/personal_data.ts";
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
import { book, INBOX, MAIL_FROM, sendInquiry } from "../../_studio_app.ts";
import { createReceiverPool, deliverQueued, listValues, verifyWebhook } from "./_receiver.ts";
import { createWebhookStudio, listNextMonthSlots, type WebhookStudio } from "./_webhook_studio.ts";

const SECRET = "whsec_8KtfhAd1ehhrC6zNBSTMcU2sIBX1F7dp";
const receivers = createReceiverPool();
after(() => receivers.stop());

/** The sample studio with a team, whose one webhook receiver answers `script`, then 200. */
async function createStudio(script: Array<number | "hold"> = []): Promise<WebhookStudio> {
  return createWebhookStudio({ receiver: await receivers.start(script), secret: SECRET }, {
    mailFrom: MAIL_FROM,
    inbox: INBOX,
    team: ["rui@studio.example"],
  });
}

const VIEW = {
  locale: "en" as const,
  timeZone: "Europe/Lisbon",
  formToken: "token-1",
  paths: { test: "/en/team/webhooks/test", enable: "/en/team/webhooks/enable" },
};

test("readWebhooksDesk() and renderWebhooksDesk() show the endpoint, its state and the latest deliveries", async () => {
  const studio = await createStudio([500]);
  await sendInquiry(studio, { Name: "Rita Lopes", Email: "rita@example.pt", Message: "Hello." });
  await deliverQueued(studio.outbox);
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
  await deliverQueued(studio.outbox);
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
  await deliverQueued(studio.outbox);
  const [request] = studio.receiver.received;
  const payload = verifyWebhook(SECRET, request);
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
  await deliverQueued(studio.outbox);
  assert.deepEqual(studio.receiver.received.map((item) => item.status), [410, 200]);
});

test("erasePersonalData() deletes the webhook payloads that carry the address and keeps the booking's cancellation", async () => {
  // The receiver is down: every delivery waits in the outbox.
  const studio = await createStudio(Array.from({ length: 50 }, () => 503));
  await sendInquiry(studio, {
    Name: "Ana Erasmo",
    Email: "Ana.Erasmo@example.pt",
    Message: "Hello.",
  });
  await sendInquiry(studio, { Name: "Rita Lopes", Email: "rita@example.pt", Message: "Hello." });
  const [start] = await listNextMonthSlots(studio);
  await book(studio, start, { name: "Ana Erasmo", email: "ana.erasmo@example.pt" });
  await deliverQueued(studio.outbox);
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
