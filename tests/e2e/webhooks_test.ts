/**
 * Webhooks end to end: the real service (one process, or two on one KV file) sends its events to
 * a real receiver on 127.0.0.1 (node:http), which checks each one with the standardwebhooks
 * package.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIME, withKvFile } from "../_kv.ts";
import {
  findFreePort,
  type RunningServer,
  SERVER_COMMAND,
  SERVER_FOLDER,
  startServer,
} from "./_server.ts";
import {
  createReceiverPool,
  listValues,
  type TestReceiver,
  verifyWebhook,
} from "../lib/webhooks/_receiver.ts";
import { startSmtpServer } from "../_smtp.ts";
import { openDesk, post, signInByMail } from "./_team.ts";

const SECRET = "whsec_bXlTZWNyZXRGb3JUaGVXZWJob29rVGVzdHMxMjM0";
const folders: string[] = [];
const receivers = createReceiverPool();

after(async () => {
  await receivers.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function createKvPath(): string {
  const folder = mkdtempSync(join(tmpdir(), "studio-webhooks-"));
  folders.push(folder);
  return join(folder, "studio.kv");
}

function buildEnv(kvPath: string, receiver: TestReceiver): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_WEBHOOK_URL: receiver.url,
    STUDIO_WEBHOOK_SECRET: SECRET,
    STUDIO_RATE_LIMIT_WRITE: "1000",
  };
}

async function postContact(server: RunningServer, email: string, message: string) {
  const response = await fetch(`${server.origin}/api/v1/contact`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ Name: "Rita Lopes", Email: email, Message: message }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
}

/** Verifies a received webhook with standardwebhooks and returns its payload. */
function verify(request: { body: string; headers: Record<string, string> }) {
  return verifyWebhook(SECRET, request);
}

/** Waits until the server's output matches, within 20 s. */
async function waitForOutput(server: RunningServer, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!pattern.test(server.output())) {
    if (Date.now() > deadline) assert.fail(`No ${pattern} in:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test(`an inquiry sends a signed inquiry.received; a 500 is retried with the same webhook-id, then 200 (${RUNTIME})`, async () => {
  const receiver = await receivers.start([500]);
  const server = await startServer(buildEnv(createKvPath(), receiver));
  try {
    await postContact(server, "rita@example.pt", "A new site, please.");
    const [first, second] = await receiver.waitFor(2, 30_000);
    assert.deepEqual([first.status, second.status], [500, 200]);
    assert.equal(first.headers["webhook-id"], second.headers["webhook-id"]);
    assert.match(first.headers["webhook-id"], /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    const payload = verify(second);
    assert.deepEqual(verify(first), payload);
    assert.equal(payload.type, "inquiry.received");
    assert.equal(payload.data.email, "rita@example.pt");
    assert.ok(
      Number(second.headers["webhook-timestamp"]) >= Number(first.headers["webhook-timestamp"]) + 5,
      "the retry came after the 5 s backoff, signed at its own time",
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(receiver.received.length, 2, "nothing more once it was delivered");
  } finally {
    await server.stop();
  }
});

test(`a 410 answer disables the endpoint and the log says so; nothing more is sent to it (${RUNTIME})`, async () => {
  const receiver = await receivers.start([410]);
  const kvPath = createKvPath();
  const server = await startServer(buildEnv(kvPath, receiver));
  try {
    await postContact(server, "rita@example.pt", "First.");
    await receiver.waitFor(1);
    await waitForOutput(server, /410 Gone and is disabled/);
    await postContact(server, "rita@example.pt", "Second.");
    await waitForOutput(server, /Webhook dropped: its endpoint is disabled/);
    assert.equal(receiver.received.length, 1);
  } finally {
    await server.stop();
  }
  await withKvFile(kvPath, async (kv) => {
    const states = await listValues<{ status: number }>(kv, ["webhook_endpoint"]);
    assert.deepEqual(states.map((state) => state.status), [410]);
    const outcomes = await listValues<{ outcome: string }>(kv, ["webhook_done"]);
    assert.deepEqual(outcomes.map((record) => record.outcome), ["gone", "disabled"]);
  });
});

test(`the desk's Webhooks page shows a 410-disabled endpoint, enables it again and sends a test event that arrives signed (${RUNTIME})`, async () => {
  const receiver = await receivers.start([410]);
  const smtp = await startSmtpServer();
  const port = await findFreePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startServer({
    ...buildEnv(createKvPath(), receiver),
    PORT: String(port),
    STUDIO_BASE_URL: origin,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_TEAM: "ana@studio.example",
  });
  try {
    await postContact(server, "rita@example.pt", "First.");
    await waitForOutput(server, /410 Gone and is disabled/);
    const cookie = await signInByMail(server, smtp, {
      member: "ana@studio.example",
      baseUrl: origin,
    });
    const { html, token } = await openDesk(server, cookie, "/en/team/webhooks");
    assert.match(html, /<h1>Webhooks<\/h1>/);
    assert.match(html, /410/, "the endpoint's state names the 410");
    assert.match(html, /href="\/en\/team\/webhooks"[^>]*aria-current="page"/);
    const endpoint = /name="endpoint" value="([0-9a-f]{16})"/.exec(html)?.[1] ?? "";
    assert.ok(endpoint, "the page's forms name the endpoint");
    const refused = await post(server, "/en/team/webhooks/test", { form_token: token, endpoint }, {
      Cookie: cookie,
      Origin: origin,
    });
    assert.equal(refused.status, 303);
    assert.equal(refused.headers.get("Location"), "/en/team/webhooks?notice=disabled");
    const enabled = await post(
      server,
      "/en/team/webhooks/enable",
      { form_token: token, endpoint },
      {
        Cookie: cookie,
        Origin: origin,
      },
    );
    assert.equal(enabled.headers.get("Location"), "/en/team/webhooks?notice=enabled");
    const sent = await post(server, "/en/team/webhooks/test", { form_token: token, endpoint }, {
      Cookie: cookie,
      Origin: origin,
    });
    assert.equal(sent.headers.get("Location"), "/en/team/webhooks?notice=queued");
    const [, test] = await receiver.waitFor(2);
    const event = verify(test);
    assert.equal(event.type, "webhook.test");
    const after = await openDesk(server, cookie, "/en/team/webhooks?notice=queued");
    assert.doesNotMatch(after.html, /Disabled by a 410/);
    const audit = await openDesk(server, cookie, "/en/team/audit");
    assert.match(audit.html, /sent a test event to the webhook/);
    assert.match(audit.html, /enabled the webhook again/);
    // Without webhooks the section is neither listed nor served (the other tests' servers).
  } finally {
    await server.stop();
    await smtp.stop();
  }
});

/** Runs the operator's erasure on a KV file; returns its exit code and output. */
async function runErasure(kvPath: string, email: string) {
  const [program, ...args] = RUNTIME === "deno"
    ? [process.execPath, "task", "--quiet", "inbox"]
    : [...SERVER_COMMAND, "inbox"];
  const child = spawn(program, [...args, "erase", email, "--actor", "Operator"], {
    cwd: SERVER_FOLDER,
    env: { ...process.env, NO_COLOR: "1", STUDIO_KV_PATH: kvPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => output += chunk);
  child.stderr?.on("data", (chunk) => output += chunk);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = await once(child, "exit");
  clearTimeout(timer);
  return { code, output };
}

test(`an erasure removes the queued webhook payloads that carry the address (${RUNTIME})`, async () => {
  const receiver = await receivers.start(Array.from({ length: 20 }, () => 503));
  const kvPath = createKvPath();
  const server = await startServer(buildEnv(kvPath, receiver));
  try {
    await postContact(server, "ana.erasmo@example.pt", "Erase me later.");
    await postContact(server, "rita@example.pt", "Keep me.");
    await receiver.waitFor(2);
  } finally {
    await server.stop();
  }
  const decoder = new TextDecoder();
  const readQueued = () =>
    withKvFile(
      kvPath,
      async (kv) =>
        (await listValues<{ payload: Uint8Array }>(kv, ["webhook_outbox"]))
          .map((delivery) => JSON.parse(decoder.decode(delivery.payload)).data.email)
          .sort(),
    );
  assert.deepEqual(await readQueued(), ["ana.erasmo@example.pt", "rita@example.pt"]);
  const erased = await runErasure(kvPath, "ana.erasmo@example.pt");
  assert.equal(erased.code, 0, erased.output);
  assert.deepEqual(await readQueued(), ["rita@example.pt"]);
});

test(`two processes on one KV file deliver each webhook once (${RUNTIME})`, async () => {
  const receiver = await receivers.start();
  const kvPath = createKvPath();
  const servers = await Promise.all([
    startServer(buildEnv(kvPath, receiver)),
    startServer(buildEnv(kvPath, receiver)),
  ]);
  const count = 30;
  try {
    await Promise.all(
      Array.from(
        { length: count },
        (_, index) => postContact(servers[index % 2], `p${index}@example.pt`, `Inquiry ${index}`),
      ),
    );
    await receiver.waitFor(count, 60_000);
    // Both processes keep polling the store: give a duplicate the time to show.
    await new Promise((resolve) => setTimeout(resolve, 7000));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  const payloads = receiver.received.map(verify);
  assert.equal(receiver.received.length, count, "each event delivered once");
  assert.equal(new Set(receiver.received.map((item) => item.headers["webhook-id"])).size, count);
  assert.deepEqual(
    payloads.map((payload) => payload.data.email).sort(),
    Array.from({ length: count }, (_, index) => `p${index}@example.pt`).sort(),
  );
  await withKvFile(kvPath, async (kv) => {
    assert.deepEqual(await listValues(kv, ["webhook_outbox"]), [], "nothing left to send");
    const inquiries = await listValues<{ id: string }>(kv, ["inquiry"]);
    assert.deepEqual(
      payloads.map((payload) => payload.data.id).sort(),
      inquiries.map((inquiry) => inquiry.id).sort(),
    );
  });
});
