import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../../_fixture_studio.ts";
import { CONTENT_SECURITY_POLICY } from "../../../lib/http/security_headers.ts";
import { createRecordingLogger, createTestClient } from "../../_support.ts";

/** Requests across every kind of answer: API, alias, errors, pages, links, documents, forms. */
const REQUESTS: ReadonlyArray<readonly [method: "GET" | "HEAD" | "POST", path: string]> = [
  ["GET", "/api/v1/health"],
  ["GET", "/api/health"],
  ["GET", "/api/v1/nothing-here"],
  ["POST", "/api/v1/health"],
  ["GET", "/"],
  ["HEAD", "/en"],
  ["GET", "/en/contact"],
  ["GET", "/marcar-conversa"],
  ["GET", "/nao-existe"],
  ["POST", "/servicos"],
  ["GET", "/booking/confirm?id=x&sig=y"],
  ["POST", "/booking/cancel?id=x&sig=y"],
  ["GET", "/booking/reschedule?id=x&seq=0&sig=y"],
  ["POST", "/booking/reschedule?id=x&seq=0&sig=y"],
  ["POST", "/contacto"],
  ["GET", "/md/index.md"],
  ["GET", "/llms.txt"],
  ["GET", "/sitemap.xml"],
  ["GET", "/openapi.json"],
  ["GET", "/.well-known/api-catalog"],
];

async function send(baseUrl: string) {
  const client = createTestClient(
    createSampleHandler({ baseUrl, logger: createRecordingLogger(), rateLimits: { write: 1000 } }),
  );
  const answers = [];
  for (const [method, path] of REQUESTS) {
    const response = method === "GET"
      ? await client.get(path)
      : method === "HEAD"
      ? await client.head(path)
      : await client.post(path, new URLSearchParams({ Name: "x" }));
    await response.body?.cancel();
    answers.push({ label: `${method} ${path} → ${response.status}`, headers: response.headers });
  }
  return answers;
}

test("every HTML answer carries a Content-Security-Policy with frame-ancestors 'none', every answer nosniff", async () => {
  const answers = await send("http://localhost:8000");
  const html = answers.filter((answer) =>
    answer.headers.get("Content-Type")?.startsWith("text/html")
  );
  // Pages, the 404 and 405 pages, the booking-link pages and the form's answer, at least.
  assert.ok(html.length >= 9, html.map((answer) => answer.label).join("\n"));
  for (const { label, headers } of html) {
    const policy = headers.get("Content-Security-Policy") ?? "";
    assert.match(policy, /frame-ancestors 'none'/, label);
    assert.match(policy, /default-src 'self'/, label);
  }
  for (const { label, headers } of answers) {
    assert.equal(headers.get("X-Content-Type-Options"), "nosniff", label);
    assert.equal(headers.get("Strict-Transport-Security"), null, `${label}: not over http`);
  }
  assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
});

test("with an https base URL every answer carries Strict-Transport-Security", async () => {
  for (const { label, headers } of await send("https://studio.example")) {
    assert.equal(headers.get("Strict-Transport-Security"), "max-age=31536000", label);
  }
});
