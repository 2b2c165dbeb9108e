import { test } from "node:test";
import assert from "node:assert/strict";
import { createHandler } from "../../../mod.ts";
import type { InquiryRecord } from "../../../lib/contact/inquiries.ts";
import type { Store } from "../../../lib/store/store.ts";
import { buildRequest, createRecordingLogger, fromAddress } from "../_support.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";

const CLIENT = fromAddress("203.0.113.40");
const clock = createFixedClock("2026-11-21T10:00:00Z");

function buildForm(fields: Array<[string, string]>): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return form;
}

const VALID: Array<[string, string]> = [
  ["Name", "Maria"],
  ["Name", "da Silva Santos"],
  ["Email", "maria@example.pt"],
  ["Category", "website"],
  ["Message", "Precisamos de um site novo para a nossa padaria em Campo de Ourique."],
  ["utm_source", "newsletter"],
  ["utm_medium", "email"],
  ["utm_campaign", ""],
  ["utm_content", ""],
  ["utm_term", ""],
  ["gclid", "EAIaIQobChMI-test"],
];

async function listInquiries(store: Store): Promise<InquiryRecord[]> {
  const records: InquiryRecord[] = [];
  for await (const entry of store.list<InquiryRecord>({ prefix: ["inquiry"] })) {
    records.push(entry.value);
  }
  return records;
}

test("POST /contacto stores the inquiry through the contact service and redirects to the thank-you page", async () => {
  const store = createMemoryStore();
  const mailer = createMemoryMailer();
  const handler = createHandler({ store, mailer, clock, logger: createRecordingLogger() });
  const response = await handler(
    buildRequest("/contacto", {
      method: "POST",
      body: buildForm(VALID),
      headers: { Referer: "http://localhost:8000/contacto", "User-Agent": "Firefox" },
    }),
    CLIENT,
  );
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("Location"), "/contacto/obrigado");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("RateLimit"), null, "no API headers on the site");
  assert.equal(await response.text(), "");

  const [record] = await listInquiries(store);
  assert.equal(record.fields.Name, "Maria da Silva Santos", "the two Name inputs are joined");
  assert.equal(record.fields.Email, "maria@example.pt");
  assert.equal(record.fields.Category, "website");
  assert.equal(record.fields.utm_source, "newsletter");
  assert.equal(record.fields.gclid, "EAIaIQobChMI-test");
  assert.equal(record.fields.utm_campaign, undefined, "empty hidden fields are absent");
  assert.equal(record.referrer, "http://localhost:8000/contacto");
  assert.equal(record.clientAddress, "203.0.113.40");

  const thanks = await handler(buildRequest("/contacto/obrigado"));
  assert.equal(thanks.status, 200);
  const page = await thanks.text();
  assert.match(page, /<html lang="pt-PT">/);
  assert.match(page, /Obrigado, recebemos a sua mensagem/);
  assert.match(page, /<meta name="robots" content="noindex">/);
});

test("POST /en/contact with a missing email shows the form again in English, with the values kept", async () => {
  const store = createMemoryStore();
  const handler = createHandler({ store, clock, logger: createRecordingLogger() });
  const fields = VALID.map(([name, value]): [string, string] =>
    name === "Email"
      ? [name, ""]
      : [name, name === "Message" ? "A new site, <please> & soon" : value]
  );
  const response = await handler(
    buildRequest("/en/contact", { method: "POST", body: buildForm(fields) }),
    CLIENT,
  );
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  const body = await response.text();
  assert.match(body, /<html lang="en">/);
  assert.match(body, /Your message was not sent/);
  assert.match(body, /<a href="#f-email">Email<\/a>: Please fill in this field\./);
  assert.match(
    body,
    /<input id="f-email" name="Email" [^>]*aria-describedby="f-email-error" aria-invalid="true"[^>]*>/,
  );
  assert.match(body, /<input id="f-first" name="Name" [^>]*value="Maria"/);
  assert.match(body, /<input id="f-last" name="Name" [^>]*value="da Silva Santos"/);
  assert.match(body, /<textarea [^>]*>A new site, &lt;please&gt; &amp; soon<\/textarea>/);
  assert.match(body, /<option value="website" selected>Website<\/option>/);
  assert.match(body, /<input type="hidden" name="gclid" value="EAIaIQobChMI-test">/);
  assert.doesNotMatch(body, /"ok":false/, "never JSON");
  assert.deepEqual(await listInquiries(store), []);
});

test("POST /contacto with a body that does not parse answers a page saying so, in Portuguese", async () => {
  const handler = createHandler({ clock, logger: createRecordingLogger() });
  const response = await handler(
    buildRequest("/contacto", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "Nome: Maria",
    }),
    CLIENT,
  );
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  const body = await response.text();
  assert.match(body, /<html lang="pt-PT">/);
  assert.match(body, /<h1>Não conseguimos ler o formulário<\/h1>/);
  assert.match(body, /href="mailto:ola@studio\.example"/);
});

test("POST /en/contact answers a chunked body over 64 KiB with a 400 page at once", async () => {
  const handler = createHandler({ clock, logger: createRecordingLogger() });
  const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 8) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const answered = handler(
    buildRequest("/en/contact", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x" },
      body,
    }),
    CLIENT,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 3000));
  const response = await Promise.race([answered, late]);
  clearTimeout(timer);
  assert.notEqual(response, "late", "no answer within 3 s");
  if (response === "late") return;
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.match(await response.text(), /<html lang="en">/);
});

test("POST /contacto counts against the write quota and answers a 429 page with Retry-After", async () => {
  const handler = createHandler({
    clock,
    rateLimits: { write: 2 },
    logger: createRecordingLogger(),
  });
  for (let index = 0; index < 2; index++) {
    const response = await handler(
      buildRequest("/contacto", { method: "POST", body: buildForm(VALID) }),
      CLIENT,
    );
    assert.equal(response.status, 303);
    await response.body?.cancel();
  }
  const refused = await handler(
    buildRequest("/en/contact", { method: "POST", body: buildForm(VALID) }),
    CLIENT,
  );
  assert.equal(refused.status, 429);
  const retryAfter = Number(refused.headers.get("Retry-After"));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
  const body = await refused.text();
  assert.match(body, /<html lang="en">/);
  assert.match(body, /Too many messages in a row/);
  assert.ok(body.includes(`Wait ${retryAfter} seconds`));

  const api = await handler(
    buildRequest("/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Ana", Email: "ana@example.pt", Message: "Olá" }),
    }),
    CLIENT,
  );
  assert.equal(api.status, 429, "the form and the API share the write quota");
  await api.body?.cancel();
});

test("POST /en/contact answers a 500 page when the inquiry cannot be stored", async () => {
  const inner = createMemoryStore();
  const failing: Store = {
    ...inner,
    get: (key) => inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (selector, options) => inner.list(selector, options),
    close: () => inner.close(),
    atomic: () => {
      const operation = inner.atomic();
      operation.commit = () => Promise.reject(new Error("disk full"));
      return operation;
    },
  };
  const logger = createRecordingLogger();
  const handler = createHandler({ store: failing, clock, logger });
  const response = await handler(
    buildRequest("/en/contact", { method: "POST", body: buildForm(VALID) }),
    CLIENT,
  );
  assert.equal(response.status, 500);
  const body = await response.text();
  assert.match(body, /<h1>Your message was not saved<\/h1>/);
  assert.doesNotMatch(body, /disk full/);
});

test("GET of a page with campaign parameters keeps the first touch, and the contact form carries it", async () => {
  const handler = createHandler({ baseUrl: "https://studio.example" });
  const landing = await handler(
    buildRequest("/servicos?utm_source=google&utm_medium=cpc&gclid=abc123&other=1"),
  );
  assert.equal(landing.status, 200);
  await landing.body?.cancel();
  const cookie = landing.headers.get("Set-Cookie") ?? "";
  // Attribute order is the cookie package's; it carries no meaning (RFC 6265, section 5.2).
  assert.equal(
    cookie,
    "first_touch=utm_source=google&utm_medium=cpc&gclid=abc123; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax",
  );
  assert.equal(landing.headers.get("Cache-Control"), "private, no-store");

  const later = await handler(
    buildRequest("/en/services?utm_source=bing", { headers: { Cookie: cookie.split(";")[0] } }),
  );
  assert.equal(later.headers.get("Set-Cookie"), null, "the first touch is not overwritten");
  await later.body?.cancel();

  const contact = await handler(
    buildRequest("/contacto", { headers: { Cookie: `theme=dark; ${cookie.split(";")[0]}` } }),
  );
  assert.equal(contact.status, 200);
  assert.equal(contact.headers.get("Cache-Control"), "private, no-store");
  assert.equal(contact.headers.get("Vary"), "Accept, Cookie, Accept-Encoding");
  const page = await contact.text();
  assert.match(page, /<input type="hidden" name="utm_source" value="google">/);
  assert.match(page, /<input type="hidden" name="utm_medium" value="cpc">/);
  assert.match(page, /<input type="hidden" name="gclid" value="abc123">/);
  assert.match(page, /<input type="hidden" name="utm_campaign">/);

  const direct = await handler(buildRequest("/en/contact?utm_campaign=autumn%20%3Cb%3E"));
  const english = await direct.text();
  assert.match(english, /<input type="hidden" name="utm_campaign" value="autumn &lt;b&gt;">/);
  assert.match(direct.headers.get("Set-Cookie") ?? "", /^first_touch=utm_campaign=autumn/);

  const plain = await handler(buildRequest("/contacto"));
  assert.equal(plain.headers.get("Cache-Control"), "public, max-age=300");
  assert.match(await plain.text(), /<input type="hidden" name="gclid">/);
});
