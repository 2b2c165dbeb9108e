import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInbox, type RunningServer, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";

const INBOX = "inbox@studio.example";
const INQUIRIES = 20;
/** Just over the outbox's default poll interval of 5 s in main.ts. */
const POLL_MARGIN_MILLISECONDS = 5500;

function buildEnv(kvPath: string, smtp: TestSmtpServer): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: INBOX,
    STUDIO_RATE_LIMIT_WRITE: "1000",
  };
}

function senderName(run: string, index: number): string {
  return `${run} Cliente ${String(index).padStart(2, "0")}`;
}

/** Posts `count` inquiries, alternating JSON and the site's multipart form, and asserts 200. */
async function postInquiries(server: RunningServer, run: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const name = senderName(run, index);
    const email = `cliente${index}@example.pt`;
    const message = `Inquiry ${index} of run ${run}: a new website, please.`;
    let response: Response;
    if (index % 2) {
      const form = new FormData();
      const [first, ...rest] = name.split(" ");
      form.append("Name", first);
      form.append("Name", rest.join(" "));
      form.append("Email", email);
      form.append("Message", message);
      response = await fetch(`${server.origin}/api/fuel-contact`, { method: "POST", body: form });
    } else {
      response = await fetch(`${server.origin}/api/v1/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ Name: name, Email: email, Message: message, Category: "website" }),
      });
    }
    assert.equal(response.status, 200, `inquiry ${index}`);
    assert.equal(response.headers.get("RateLimit-Policy"), '"write";q=1000;w=60');
    assert.deepEqual(await response.json(), { ok: true });
  }
}

/** Asserts that every inquiry of a run arrived exactly once, routed to the inbox. */
function assertDeliveredOnce(smtp: TestSmtpServer, run: string, count: number): void {
  assert.equal(smtp.messages.length, count, "no message is missing or duplicated");
  const messageIds = smtp.messages.map((mail) => mail.parsed.messageId);
  assert.equal(new Set(messageIds).size, count, "distinct Message-IDs");
  for (const id of messageIds) assert.match(id ?? "", /^<inquiry-[0-9A-Z]{26}@localhost>$/);
  for (let index = 0; index < count; index++) {
    const name = senderName(run, index);
    const mails = smtp.messages.filter((mail) =>
      mail.parsed.subject?.startsWith(`Novo contacto: ${name}`)
    );
    assert.equal(mails.length, 1, `${name} arrived once`);
    const [mail] = mails;
    assert.deepEqual(mail.envelopeTo, [INBOX]);
    assert.equal(mail.envelopeFrom, "site@studio.example");
    assert.deepEqual(mail.parsed.replyTo, [{ address: `cliente${index}@example.pt`, name: "" }]);
    assert.ok((mail.parsed.text ?? "").includes(`Inquiry ${index} of run ${run}`));
  }
}

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

test("POST /api/v1/contact answers 200 while SMTP is down and delivers each inquiry once when it is back", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-contact-"));
  const smtp = await startSmtpServer();
  await smtp.stop();
  const server = await startServer(buildEnv(join(folder, "studio.kv"), smtp));
  try {
    await postInquiries(server, "A", INQUIRIES);
    await delay(300);
    assert.equal(smtp.messages.length, 0, "nothing can arrive while SMTP is down");
    assert.match(server.output(), /Mail delivery failed; will retry/);

    await smtp.start();
    await smtp.waitFor(INQUIRIES, 25_000);
    // Longer than the outbox's 5 s poll: a message that is sent again would show up by now.
    await delay(POLL_MARGIN_MILLISECONDS);
    assertDeliveredOnce(smtp, "A", INQUIRIES);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("POST /api/v1/contact delivers inquiries accepted before a SIGKILL once, after a restart", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-contact-"));
  const kvPath = join(folder, "studio.kv");
  const smtp = await startSmtpServer();
  await smtp.stop();
  let server = await startServer(buildEnv(kvPath, smtp));
  try {
    await postInquiries(server, "B", INQUIRIES);
    // Let the failed first attempts settle, then crash well before the next retry is due.
    await delay(500);
    await server.stop({ kill: true });
    assert.equal(server.process.signalCode, "SIGKILL");
    assert.equal(smtp.messages.length, 0);

    await smtp.start();
    server = await startServer(buildEnv(kvPath, smtp));
    await smtp.waitFor(INQUIRIES, 25_000);
    // Longer than the outbox's 5 s poll: a message that is sent again would show up by now.
    await delay(POLL_MARGIN_MILLISECONDS);
    assertDeliveredOnce(smtp, "B", INQUIRIES);
    await server.stop();

    const { code, stdout, stderr } = await runInbox(kvPath);
    assert.equal(code, 0, stderr);
    const blocks = stdout.split("\n\n");
    for (let index = 0; index < INQUIRIES; index++) {
      const name = senderName("B", index);
      const matching = blocks.filter((block) =>
        block.includes(`  from:     ${name} <cliente${index}@example.pt>`)
      );
      assert.equal(matching.length, 1, `${name} is listed once:\n${stdout}`);
      assert.match(matching[0], /\n {2}delivery: sent \S+Z to inbox@studio\.example$/);
    }
    assert.ok(!stdout.includes("pending"), stdout);
    assert.match(stdout, /\n20 inquiries\n/);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test(
  "POST /api/v1/contact stores a valid 5000-character message full of quotes in the KV file",
  {},
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-contact-"));
    const server = await startServer({ STUDIO_KV_PATH: join(folder, "studio.kv") });
    try {
      const message = "\u201c" + '"'.repeat(4999);
      const response = await fetch(`${server.origin}/api/v1/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ Name: "Rui Quintas", Email: "rui@example.pt", Message: message }),
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { ok: true });
    } finally {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
