import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIME, withKvFile } from "../_kv.ts";
import type { KvKey, Store } from "../../lib/store/store.ts";
import { type RunningServer, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { buildBookingBody } from "../_booking.ts";
import { nextMonth } from "./_studio.ts";

const BASE_URL = "https://studio.example";

function buildEnv(kvPath: string, smtp: TestSmtpServer): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_TRUST_PROXY: "x-forwarded-for",
    STUDIO_RATE_LIMIT_STORE: "kv",
    STUDIO_LOG: "quiet",
  };
}

async function listKeys(kv: Store, prefix: KvKey): Promise<unknown[]> {
  const values = [];
  for await (const entry of kv.list({ prefix })) values.push(entry.value);
  return values;
}

function postContact(server: RunningServer, client: string, message: string): Promise<Response> {
  return fetch(`${server.origin}/api/v1/contact`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": client },
    body: JSON.stringify({ Name: "Rita Lopes", Email: "rita@example.pt", Message: message }),
  });
}

async function listSlots(server: RunningServer): Promise<string[]> {
  const response = await fetch(`${server.origin}/api/v1/booking/slots?month=${nextMonth()}`);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

test(`two processes on one KV file under mixed contact and booking load: every 200/201 stored and delivered, no 5xx, one quota for both (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-two-"));
  const kvPath = join(folder, "studio.kv");
  const smtp = await startSmtpServer();
  const servers = await Promise.all([
    startServer(buildEnv(kvPath, smtp)),
    startServer(buildEnv(kvPath, smtp)),
  ]);
  const answered: Array<{ kind: "contact" | "booking"; tag: string; status: number }> = [];
  let quotaStatuses: number[] = [];
  try {
    // One client sends 100 inquiries at once, half to each process: the write quota of 10 is
    // counted in the shared store, so no more than 10 are let through, and none fails.
    const burst = await Promise.all(
      Array.from(
        { length: 100 },
        (_, index) => postContact(servers[index % 2], "198.51.100.1", `Burst ${index}`),
      ),
    );
    quotaStatuses = burst.map((response) => response.status);
    await Promise.all(burst.map((response) => response.body?.cancel()));

    // Then mixed load, each request from its own client: 80 inquiries and 20 bookings of
    // distinct slots, alternating between the processes.
    const starts = (await listSlots(servers[0])).slice(0, 20);
    assert.equal(starts.length, 20, "20 free slots next month");
    const requests = [
      ...Array.from({ length: 80 }, (_, index) => async () => {
        const tag = `[mixed-contact-${index}]`;
        const response = await postContact(servers[index % 2], `10.20.0.${index + 1}`, tag);
        await response.body?.cancel();
        answered.push({ kind: "contact", tag, status: response.status });
      }),
      ...starts.map((start, index) => async () => {
        const tag = `mixed-booking-${index}@load.example`;
        const response = await fetch(`${servers[(index + 1) % 2].origin}/api/v1/booking`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Forwarded-For": `10.30.0.${index + 1}`,
          },
          body: JSON.stringify(buildBookingBody(start, { email: tag })),
        });
        await response.body?.cancel();
        answered.push({ kind: "booking", tag, status: response.status });
      }),
    ];
    await Promise.all(requests.map((send) => send()));
  } finally {
    // Delivery goes on while the servers run: wait for every message the accepted work implies.
    const admitted = quotaStatuses.filter((status) => status === 200).length +
      answered.filter((answer) => answer.status === 200).length +
      2 * answered.filter((answer) => answer.status === 201).length;
    await smtp.waitFor(admitted, 60_000).catch(() => undefined);
    await Promise.all(servers.map((server) => server.stop()));
    await smtp.stop();
  }
  try {
    const admitted = quotaStatuses.filter((status) => status === 200).length;
    assert.ok(admitted >= 1 && admitted <= 10, `one quota of 10 for both: ${quotaStatuses}`);
    assert.deepEqual(
      quotaStatuses.filter((status) => status !== 200 && status !== 429),
      [],
      "the burst was answered 200 or 429 only",
    );
    assert.deepEqual(
      answered.filter((answer) => answer.status !== (answer.kind === "contact" ? 200 : 201)),
      [],
      "every mixed request succeeded",
    );
    await withKvFile(kvPath, async (kv) => {
      const inquiries = await listKeys(kv, ["inquiry"]) as Array<{ fields: { Message: string } }>;
      const stored = new Set(inquiries.map((inquiry) => inquiry.fields.Message));
      assert.equal(inquiries.length, admitted + 80, "every 200 stored, once");
      for (const answer of answered.filter((item) => item.kind === "contact")) {
        assert.ok(stored.has(answer.tag), `${answer.tag} stored`);
      }
      const bookings = await listKeys(kv, ["booking"]) as Array<{ email: string }>;
      assert.deepEqual(
        bookings.map((booking) => booking.email).sort(),
        answered.filter((answer) => answer.kind === "booking").map((answer) => answer.tag).sort(),
        "every 201 stored",
      );
      assert.equal((await listKeys(kv, ["outbox"])).length, 0, "nothing left to send");
    });
    const texts = smtp.messages.map((mail) => mail.parsed.text ?? "");
    for (const answer of answered.filter((item) => item.kind === "contact")) {
      assert.equal(
        texts.filter((text) => text.includes(answer.tag)).length,
        1,
        `${answer.tag} delivered once`,
      );
    }
    for (const answer of answered.filter((item) => item.kind === "booking")) {
      const to = smtp.messages.filter((mail) => mail.envelopeTo.includes(answer.tag));
      assert.equal(to.length, 1, `${answer.tag} got its e-mail once`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
