import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler, SAMPLE_CORPUS } from "../_fixture_studio.ts";
import type { InquiryRecord } from "../../lib/contact/inquiries.ts";
import type { Store } from "../../lib/store/store.ts";
import { buildRequest, createRecordingLogger, fromAddress } from "../_support.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { escapeHtml } from "../../lib/mail/mail.ts";

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
  const handler = createSampleHandler({ store, mailer, clock, logger: createRecordingLogger() });
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
  const handler = createSampleHandler({ store, clock, logger: createRecordingLogger() });
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

test("GET of a page with campaign parameters keeps the first touch, and the contact form carries it", async () => {
  const handler = createSampleHandler({ baseUrl: "https://studio.example" });
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

/** What a person typed, with characters that must come back escaped. */
const TYPED = {
  first: 'Zé "Ana" <b>',
  last: "Silva & Filhos",
  email: "ze@example.pt",
  category: "branding",
  message: 'Uma marca para a padaria <já> & "já", com loja online.',
};

/** The form's fields with {@linkcode TYPED}, the message last, as the form sends them. */
function buildTypedFields(message = TYPED.message): Array<[string, string]> {
  return [
    ["Name", TYPED.first],
    ["Name", TYPED.last],
    ["Email", TYPED.email],
    ["Category", TYPED.category],
    ["utm_source", "newsletter"],
    ["Message", message],
  ];
}

/** The contact pages, with their language's `lang` and the form's texts. */
const CONTACT_PAGES = [
  { path: "/en/contact", lang: "en", text: SAMPLE_CORPUS.languages.en.form },
  { path: "/contacto", lang: "pt-PT", text: SAMPLE_CORPUS.languages.pt.form },
] as const;

/** The `value` attribute of the input whose id is `id`, as written in the page. */
function readValue(page: string, id: string): string | undefined {
  const input = new RegExp(`<input id="${id}"[^>]*>`).exec(page)?.[0] ?? "";
  return / value="([^"]*)"/.exec(input)?.[1];
}

/**
 * Asserts a contact page answered to a refused submission: the status, an HTML page of the site
 * in the form's language (not cached), the notice titled `title` above the form, and the form
 * filled in again with what the person typed, escaped.
 */
async function assertContactPage(
  response: Response,
  expected: {
    status: number;
    page: typeof CONTACT_PAGES[number];
    title: string;
    /** The message typed, {@linkcode TYPED}'s by default. */
    message?: string;
    /** Whether the message was cut by the body's bound: then what came back begins it. */
    cut?: boolean;
  },
): Promise<string> {
  const { status, page, title } = expected;
  const body = await response.text();
  assert.equal(response.status, status, `${page.path}: ${body.slice(0, 300)}`);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.ok(body.includes(`<html lang="${page.lang}">`), page.path);
  assert.ok(body.includes(`<title>${escapeHtml(title)} · `), `${page.path}: the title says it`);
  assert.match(body, /<link rel="stylesheet"/, "in the site's design");
  assert.ok(
    body.includes(
      `<div class="notice" id="form-errors" role="alert" tabindex="-1">\n<h2>${
        escapeHtml(title)
      }</h2>`,
    ),
    `${page.path}: the notice says what happened`,
  );
  assert.equal(readValue(body, "f-first"), escapeHtml(TYPED.first), page.path);
  assert.equal(readValue(body, "f-last"), escapeHtml(TYPED.last), page.path);
  assert.equal(readValue(body, "f-email"), escapeHtml(TYPED.email), page.path);
  assert.ok(body.includes(`<option value="${TYPED.category}" selected>`), page.path);
  assert.match(body, /<input type="hidden" name="utm_source" value="newsletter">/);
  const message = /<textarea id="f-message"[^>]*>([\s\S]*?)<\/textarea>/.exec(body)?.[1];
  const typed = escapeHtml(expected.message ?? TYPED.message);
  if (expected.cut) {
    assert.ok(message && message.length > 60_000, `as far as it arrived: ${message?.length}`);
    assert.ok(typed.startsWith(message), page.path);
  } else {
    assert.equal(message, typed, page.path);
  }
  assert.doesNotMatch(body, /"ok":false/, "never JSON");
  return body;
}

test("POST /en/contact and /contacto answer a multipart body that does not parse with the form again, what was typed kept (400)", async () => {
  const handler = createSampleHandler({ clock, logger: createRecordingLogger() });
  for (const page of CONTACT_PAGES) {
    // Cut before its closing delimiter, as a dropped connection leaves it.
    const body = buildTypedFields().map(([name, value]) =>
      `--cut\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}`
    ).join("\r\n");
    const response = await handler(
      buildRequest(page.path, {
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=cut" },
        body,
      }),
      CLIENT,
    );
    const html = await assertContactPage(response, {
      status: 400,
      page,
      title: page.text.badForm.title,
    });
    assert.ok(html.includes('href="mailto:ola@studio.example"'), "another way to write");
  }
});

test("POST /en/contact and /contacto answer a field that is wrong with the form again, its message and the values kept (400)", async () => {
  const handler = createSampleHandler({ clock, logger: createRecordingLogger() });
  for (const page of CONTACT_PAGES) {
    const fields = buildTypedFields().map(([name, value]): [string, string] =>
      name === "Email" ? [name, "ze.example.pt"] : [name, value]
    );
    const response = await handler(
      buildRequest(page.path, { method: "POST", body: buildForm(fields) }),
      CLIENT,
    );
    const body = await response.text();
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
    assert.ok(body.includes(`<html lang="${page.lang}">`));
    assert.ok(body.includes(`<h2>${escapeHtml(page.text.errorSummary)}</h2>`));
    assert.match(body, /<input id="f-email"[^>]*aria-invalid="true"/);
    assert.equal(readValue(body, "f-email"), "ze.example.pt");
    assert.equal(readValue(body, "f-first"), escapeHtml(TYPED.first));
    assert.equal(readValue(body, "f-last"), escapeHtml(TYPED.last));
    assert.ok(body.includes(`>${escapeHtml(TYPED.message)}</textarea>`));
  }
});

test("POST /en/contact and /contacto from a foreign Origin answer the form again with what was typed, saying where to send it (403)", async () => {
  const store = createMemoryStore();
  const handler = createSampleHandler({ store, clock, logger: createRecordingLogger() });
  for (const page of CONTACT_PAGES) {
    const response = await handler(
      buildRequest(page.path, {
        method: "POST",
        headers: { Origin: "https://elsewhere.example" },
        body: buildForm(buildTypedFields()),
      }),
      CLIENT,
    );
    const body = await assertContactPage(response, {
      status: 403,
      page,
      title: page.text.originRejected.title,
    });
    assert.ok(body.includes("http://localhost:8000"), "the site's own address");
  }
  assert.deepEqual(await listInquiries(store), [], "nothing stored");
});

test("POST /en/contact and /contacto answer a body over 64 KiB with the form again, keeping the fields that arrived and the message as far as it did (413)", async () => {
  const store = createMemoryStore();
  const handler = createSampleHandler({ store, clock, logger: createRecordingLogger() });
  const long = TYPED.message + " " + "Mais um pormenor. ".repeat(4_000);
  for (const page of CONTACT_PAGES) {
    for (const chunked of [false, true]) {
      const form = new Request("http://localhost/", {
        method: "POST",
        body: buildForm(buildTypedFields(long)),
      });
      const contentType = form.headers.get("Content-Type") ?? "";
      const bytes = new Uint8Array(await form.arrayBuffer());
      // Chunked, the body never ends: it is answered once the bound is passed, not when it ends.
      const body = chunked
        ? new ReadableStream<Uint8Array>({
          start(controller) {
            for (let offset = 0; offset < bytes.length; offset += 16_384) {
              controller.enqueue(bytes.slice(offset, offset + 16_384));
            }
          },
        })
        : bytes;
      const response = await handler(
        buildRequest(page.path, { method: "POST", headers: { "Content-Type": contentType }, body }),
        CLIENT,
      );
      const text = await assertContactPage(response, {
        status: 413,
        page,
        title: page.text.tooLarge.title,
        message: long,
        cut: true,
      });
      assert.ok(text.includes("64 KiB"), "the bound");
    }
  }
  assert.deepEqual(await listInquiries(store), [], "nothing stored");
});

test("POST /en/contact and /contacto count against the write quota: over it, the form again with what was typed and Retry-After (429)", async () => {
  for (const page of CONTACT_PAGES) {
    const handler = createSampleHandler({
      clock,
      rateLimits: { write: 2 },
      logger: createRecordingLogger(),
    });
    for (let index = 0; index < 2; index++) {
      const response = await handler(
        buildRequest(page.path, { method: "POST", body: buildForm(VALID) }),
        CLIENT,
      );
      assert.equal(response.status, 303);
      await response.body?.cancel();
    }
    const refused = await handler(
      buildRequest(page.path, { method: "POST", body: buildForm(buildTypedFields()) }),
      CLIENT,
    );
    const retryAfter = Number(refused.headers.get("Retry-After"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    const body = await assertContactPage(refused, {
      status: 429,
      page,
      title: page.text.rateLimited.title,
    });
    assert.ok(body.includes(` ${retryAfter} `), "the wait, in seconds");

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
  }
});

test("POST /en/contact and /contacto answer the form again with what was typed when the inquiry cannot be stored (500)", async () => {
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
  const handler = createSampleHandler({ store: failing, clock, logger: createRecordingLogger() });
  for (const page of CONTACT_PAGES) {
    const response = await handler(
      buildRequest(page.path, { method: "POST", body: buildForm(buildTypedFields()) }),
      CLIENT,
    );
    const body = await assertContactPage(response, {
      status: 500,
      page,
      title: page.text.noBackend.title,
    });
    assert.doesNotMatch(body, /disk full/);
  }
});
