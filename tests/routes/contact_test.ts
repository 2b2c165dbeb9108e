import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ErrorResponseBody } from "../../lib/contract/api_error.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import { createOutbox, type SentRecord } from "../../lib/mail/outbox.ts";
import type { Mailer } from "../../lib/mail/mail.ts";
import { createSmtpMailer } from "../../adapters/smtp_mailer.ts";
import type { InquiryRecord } from "../../lib/contact/inquiries.ts";
import type {
  AtomicCheck,
  AtomicOperation,
  KvKey,
  KvSetOptions,
  Store,
} from "../../lib/store/store.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import {
  buildRequest,
  createRecordingLogger,
  createTestClient,
  fromAddress,
  readError,
} from "../_support.ts";
import { createFixedClock, createMemoryStore } from "../../testing.ts";

const INBOX = "inbox@studio.example";
const MAIL_FROM = "Studio <site@studio.example>";
const CLIENT_ADDRESS = "203.0.113.7";
const CLIENT = fromAddress(CLIENT_ADDRESS);
const MAX_BODY_BYTES = 64 * 1024;
const MEDIA_TYPES = [
  "application/json",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
];
const ATTRIBUTION = {
  utm_source: "newsletter",
  utm_medium: "email",
  utm_campaign: "outono-2026",
  utm_content: "banner-a",
  utm_term: "estúdio de design",
  gclid: "EAIaIQobChMI-test-123",
} as const;

let smtp: TestSmtpServer;
let smtpMailer: ReturnType<typeof createSmtpMailer>;
/**
 * Sends through the real SMTP server that `before` starts: the handler and outbox below are built
 * when the module loads, the server only once the tests begin.
 */
const mailer: Mailer = { send: (mail) => smtpMailer.send(mail) };
const clock = createFixedClock("2026-11-21T10:00:00Z");
const logger = createRecordingLogger();
const store = createMemoryStore();
const outbox = createOutbox({ store, mailer, clock, logger });
const handler = createSampleHandler({
  store,
  clock,
  logger,
  outbox,
  mailFrom: MAIL_FROM,
  inbox: INBOX,
  rateLimits: { write: 1000 },
});

before(async () => {
  smtp = await startSmtpServer();
  smtpMailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  await outbox.stop();
  smtpMailer.close();
  await smtp.stop();
});

let sequence = 0;
/** A message text no other test sends, to find its inquiry in the shared store. */
function uniqueMessage(label: string): string {
  sequence++;
  return `${label} (#${sequence}): we need a new website by March.`;
}

const { post } = createTestClient(handler, CLIENT_ADDRESS);

function postJson(value: unknown, path = "/api/v1/contact"): Promise<Response> {
  return post(path, JSON.stringify(value), { "Content-Type": "application/json" });
}

/** Asserts the 200 ContactSuccess answer (status already asserted by the caller). */
async function readSuccess(response: Response): Promise<void> {
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(response.headers.get("RateLimit-Policy"), '"write";q=1000;w=60');
  assert.deepEqual(await response.json(), { ok: true });
}

/** The ErrorResponse body as the library types it. */
type ErrorBody = ErrorResponseBody;

/** Asserts a 400 bad-form whose hint lists the three accepted media types. */
async function readBadForm(response: Response, message: RegExp): Promise<ErrorBody> {
  assert.equal(response.status, 400);
  const body = await readError(response, "bad-form");
  assert.match(body.error.message, message);
  for (const type of MEDIA_TYPES) assert.ok(body.error.hint.includes(type), body.error.hint);
  assert.equal(body.error.details, undefined);
  return body;
}

async function listEntries(target: Store, prefix: KvKey): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const entry of target.list({ prefix })) values.push(entry.value);
  return values;
}

async function listInquiries(target: Store = store): Promise<InquiryRecord[]> {
  const records: InquiryRecord[] = [];
  for await (const entry of target.list<InquiryRecord>({ prefix: ["inquiry"] })) {
    assert.deepEqual(entry.key, ["inquiry", entry.value.id]);
    records.push(entry.value);
  }
  return records;
}

/** The one stored inquiry whose Message contains `marker`. */
async function findInquiry(marker: string): Promise<InquiryRecord> {
  const found = (await listInquiries()).filter((record) => record.fields.Message.includes(marker));
  assert.equal(found.length, 1, `one inquiry with "${marker}"`);
  return found[0];
}

/** Waits for the e-mail of a stored inquiry and checks that it arrived once and left the outbox. */
async function receiveMail(record: InquiryRecord): Promise<ReceivedMail> {
  await outbox.idle();
  const messageId = `<inquiry-${record.id}@localhost>`;
  const deadline = Date.now() + 5000;
  let found = smtp.messages.filter((mail) => mail.parsed.messageId === messageId);
  while (!found.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    found = smtp.messages.filter((mail) => mail.parsed.messageId === messageId);
  }
  assert.equal(found.length, 1, `exactly one mail with Message-ID ${messageId}`);
  assert.equal(record.mailIds.length, 1);
  const [mailId] = record.mailIds;
  assert.equal((await store.get(["outbox", mailId])).value, null, "left the outbox");
  const sent = (await store.get<SentRecord>(["outbox_sent", mailId])).value;
  assert.ok(sent, "delivery is recorded");
  assert.deepEqual(sent.to, [INBOX]);
  assert.equal(sent.recordId, record.id);
  assert.equal(sent.attempts, 1);
  return found[0];
}

/** Asserts the routing of an inquiry mail: envelope, From, To, Reply-To, no Cc or Bcc. */
function assertRouting(mail: ReceivedMail, senderEmail: string): void {
  assert.deepEqual(mail.envelopeTo, [INBOX]);
  assert.equal(mail.envelopeFrom, "site@studio.example");
  assert.deepEqual(mail.parsed.from, { address: "site@studio.example", name: "Studio" });
  assert.deepEqual(mail.parsed.to, [{ address: INBOX, name: "" }]);
  assert.deepEqual(mail.parsed.replyTo, [{ address: senderEmail, name: "" }]);
  assert.equal(mail.header("reply-to"), senderEmail);
  assert.equal(mail.parsed.cc, undefined);
  assert.equal(mail.parsed.bcc, undefined);
  assert.equal(mail.header("cc"), undefined);
  assert.equal(mail.header("bcc"), undefined);
}

function buildForm(entries: Array<[string, string]>): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

/** `length` code points mixing one-, two- and four-byte UTF-8 (the last two UTF-16 units). */
function buildText(length: number): string {
  const parts = ["a", "é", "😀"];
  return Array.from({ length }, (_, index) => parts[index % parts.length]).join("");
}

/** A value of exactly `length` code points that is valid for `field`. */
function buildValue(field: string, length: number): string {
  const domain = "@example.pt";
  return field === "Email" ? "a".repeat(length - domain.length) + domain : buildText(length);
}

const BOUNDS: Array<[field: string, maxLength: number]> = [
  ["Name", 200],
  ["Email", 320],
  ["Message", 5000],
  ["Category", 100],
  ["utm_source", 200],
  ["utm_medium", 200],
  ["utm_campaign", 200],
  ["utm_content", 200],
  ["utm_term", 200],
  ["gclid", 200],
];

test("POST /api/v1/contact stores a JSON inquiry and delivers it to the inbox", async () => {
  const message = uniqueMessage("JSON inquiry\nSecond line");
  const response = await post(
    "/api/v1/contact",
    JSON.stringify({
      Name: "  Ana Sousa  ",
      Email: " ana@example.pt ",
      Message: `\n${message}\n`,
      Category: "website",
      ...ATTRIBUTION,
    }),
    {
      "Content-Type": "application/json",
      "User-Agent": "Mozilla/5.0 (test)",
      Referer: "https://studio.example/contacto",
    },
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Link"), null);
  assert.equal(response.headers.get("RateLimit-Limit"), "1000");
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.match(record.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(record.receivedAt, "2026-11-21T10:00:00Z");
  assert.equal(record.clientAddress, "203.0.113.7");
  assert.equal(record.userAgent, "Mozilla/5.0 (test)");
  assert.equal(record.referrer, "https://studio.example/contacto");
  assert.deepEqual(record.fields, {
    Name: "Ana Sousa",
    Email: "ana@example.pt",
    Message: message,
    Category: "website",
    ...ATTRIBUTION,
  });

  const mail = await receiveMail(record);
  assertRouting(mail, "ana@example.pt");
  assert.equal(mail.parsed.subject, "Novo contacto: Ana Sousa · website");
  const text = mail.parsed.text ?? "";
  assert.ok(text.includes("Nome: Ana Sousa"), text);
  assert.ok(text.includes("E-mail: ana@example.pt"), text);
  assert.ok(text.includes("Categoria: website"), text);
  assert.ok(text.includes(`Mensagem:\n${message}\n`), text);
  for (const [key, value] of Object.entries(ATTRIBUTION)) {
    assert.ok(text.includes(`${key}: ${value}`), `${key} in ${text}`);
  }
  assert.ok(text.includes(`ID ${record.id}`), text);
  assert.ok((mail.parsed.html ?? "").includes("Ana Sousa"));
});

test("POST /api/v1/contact joins two multipart Name fields with one space and delivers it", async () => {
  const message = uniqueMessage("Multipart inquiry");
  const response = await post(
    "/api/v1/contact",
    buildForm([
      ["Name", "  Ana "],
      ["Name", " Sousa  "],
      ["Email", "ana.multipart@example.pt"],
      ["Message", message],
      ["Category", "branding"],
      ["utm_source", "google"],
      ["gclid", "Cj0KCQ-multipart"],
    ]),
  );
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.deepEqual(record.fields, {
    Name: "Ana Sousa",
    Email: "ana.multipart@example.pt",
    Message: message,
    Category: "branding",
    utm_source: "google",
    gclid: "Cj0KCQ-multipart",
  });
  const mail = await receiveMail(record);
  assertRouting(mail, "ana.multipart@example.pt");
  assert.equal(mail.parsed.subject, "Novo contacto: Ana Sousa · branding");
  const text = mail.parsed.text ?? "";
  assert.ok(text.includes(message), text);
  assert.ok(text.includes("utm_source: google"), text);
  assert.ok(text.includes("gclid: Cj0KCQ-multipart"), text);
  assert.ok(!text.includes("utm_medium"), "absent fields are not listed");
});

test("POST /api/v1/contact accepts a multipart inquiry with a single Name field", async () => {
  const message = uniqueMessage("Single name multipart");
  const response = await post(
    "/api/v1/contact",
    buildForm([
      ["Name", "Bruno Costa"],
      ["Email", "bruno@example.com"],
      ["Message", message],
    ]),
  );
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.deepEqual(record.fields, {
    Name: "Bruno Costa",
    Email: "bruno@example.com",
    Message: message,
  });
  const mail = await receiveMail(record);
  assertRouting(mail, "bruno@example.com");
  assert.equal(mail.parsed.subject, "Novo contacto: Bruno Costa");
  const text = mail.parsed.text ?? "";
  assert.ok(text.includes("Categoria: (não indicada)"), text);
  assert.ok(text.includes("(sem dados de campanha)"), text);
});

test("POST /api/v1/contact joins two urlencoded Name fields and delivers it", async () => {
  const message = uniqueMessage("Urlencoded inquiry & more");
  const body = new URLSearchParams([
    ["Name", "Carla"],
    ["Name", "Dias Ferreira"],
    ["Email", "carla+site@example.org"],
    ["Message", message],
    ["Category", "product"],
    ["utm_medium", "cpc"],
    ["utm_campaign", "launch"],
    ["utm_content", "ad 2"],
    ["utm_term", "app design"],
  ]);
  const response = await post("/api/v1/contact", body);
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.deepEqual(record.fields, {
    Name: "Carla Dias Ferreira",
    Email: "carla+site@example.org",
    Message: message,
    Category: "product",
    utm_medium: "cpc",
    utm_campaign: "launch",
    utm_content: "ad 2",
    utm_term: "app design",
  });
  const mail = await receiveMail(record);
  assertRouting(mail, "carla+site@example.org");
  assert.equal(mail.parsed.subject, "Novo contacto: Carla Dias Ferreira · product");
  const text = mail.parsed.text ?? "";
  assert.ok(text.includes(message), text);
  for (const line of ["utm_medium: cpc", "utm_campaign: launch", "utm_content: ad 2"]) {
    assert.ok(text.includes(line), line);
  }
  assert.ok(text.includes("utm_term: app design"), text);
});

test("POST /api/fuel-contact is the alias of v1 contact with Link rel=latest-version", async () => {
  const message = uniqueMessage("Legacy alias");
  const response = await postJson(
    { Name: "Duarte Lima", Email: "duarte@example.pt", Message: message },
    "/api/fuel-contact",
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Link"), '</api/v1/contact>; rel="latest-version"');
  await readSuccess(response);

  const record = await findInquiry(message);
  const mail = await receiveMail(record);
  assertRouting(mail, "duarte@example.pt");
  assert.equal(mail.parsed.subject, "Novo contacto: Duarte Lima");

  const form = await post(
    "/api/fuel-contact",
    buildForm([["Name", "Duarte"], ["Name", "Lima"]]),
  );
  assert.equal(form.status, 400);
  assert.equal(form.headers.get("Link"), '</api/v1/contact>; rel="latest-version"');
  const error = await readError(form, "validation-failed");
  assert.deepEqual(error.error.details?.map((item) => item.field), ["Email", "Message"]);
});

test("POST /api/v1/contact accepts every bounded field at its limit in code points", async () => {
  const marker = uniqueMessage("At the limit");
  const fields: Record<string, string> = {};
  for (const [field, maxLength] of BOUNDS) fields[field] = buildValue(field, maxLength);
  fields.Message = marker + buildText(5000 - [...marker].length);
  for (const [field, maxLength] of BOUNDS) {
    assert.equal([...fields[field]].length, maxLength, field);
  }
  const padded = Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, ` \t${value}\n `]),
  );
  const response = await postJson(padded);
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(marker);
  assert.deepEqual(record.fields, fields);
  const mail = await receiveMail(record);
  assertRouting(mail, fields.Email);
  assert.equal(mail.parsed.subject, `Novo contacto: ${fields.Name} · ${fields.Category}`);
  const text = mail.parsed.text ?? "";
  assert.ok(text.includes(fields.Message), "the whole message");
  for (const [key] of Object.entries(ATTRIBUTION)) {
    assert.ok(text.includes(`${key}: ${fields[key]}`), key);
  }
});

for (const [field, maxLength] of BOUNDS) {
  test(
    `POST /api/v1/contact accepts ${field} of ${maxLength} code points and rejects ${
      maxLength + 1
    }`,
    async () => {
      const marker = uniqueMessage(`Bound of ${field}`);
      const base: Record<string, string> = {
        Name: "Eva Martins",
        Email: "eva@example.pt",
        Message: marker,
      };
      const atLimit = buildValue(field, maxLength);
      const accepted = await postJson({
        ...base,
        [field]: field === "Message" ? marker + buildText(maxLength - [...marker].length) : atLimit,
      });
      assert.equal(accepted.status, 200);
      await readSuccess(accepted);
      const record = await findInquiry(marker);
      assert.equal([...(record.fields as Record<string, string>)[field]].length, maxLength);

      const tooLong = await postJson({ ...base, [field]: buildValue(field, maxLength + 1) });
      assert.equal(tooLong.status, 400);
      const body = await readError(tooLong, "validation-failed");
      assert.equal(body.error.message, `Field "${field}" is invalid`);
      assert.ok(body.error.hint.includes(`"${field}"`), body.error.hint);
      assert.ok(body.error.hint.includes(`it has ${maxLength + 1}`), body.error.hint);
      assert.deepEqual(body.error.details?.map(({ field, problem }) => ({ field, problem })), [
        { field, problem: "length" },
      ]);
    },
  );
}

test("POST /api/v1/contact answers validation-failed listing every missing field", async () => {
  const before = (await listInquiries()).length;
  const empty = await postJson({});
  assert.equal(empty.status, 400);
  const body = await readError(empty, "validation-failed");
  assert.equal(body.error.message, 'Field "Name" is invalid');
  assert.ok(body.error.hint.includes('"Name"'), body.error.hint);
  assert.deepEqual(
    body.error.details?.map(({ field, problem }) => ({ field, problem })),
    [
      { field: "Name", problem: "missing" },
      { field: "Email", problem: "missing" },
      { field: "Message", problem: "missing" },
    ],
  );

  const blank = await postJson({ Name: "   ", Email: "fil@example.pt", Message: "\n\t " });
  assert.equal(blank.status, 400);
  const blankBody = await readError(blank, "validation-failed");
  assert.deepEqual(
    blankBody.error.details?.map(({ field, problem }) => ({ field, problem })),
    [{ field: "Name", problem: "missing" }, { field: "Message", problem: "missing" }],
  );

  const noEmail = await postJson({ Name: "Filipa", Message: "Hello" });
  assert.equal(noEmail.status, 400);
  const noEmailBody = await readError(noEmail, "validation-failed");
  assert.equal(noEmailBody.error.message, 'Field "Email" is invalid');
  assert.ok(noEmailBody.error.hint.includes('"Email"'), noEmailBody.error.hint);
  assert.deepEqual(noEmailBody.error.details?.map((item) => item.field), ["Email"]);

  const badEmail = await postJson({ Name: "Filipa", Email: "filipa at example", Message: "Hi" });
  assert.equal(badEmail.status, 400);
  const badEmailBody = await readError(badEmail, "validation-failed");
  assert.deepEqual(badEmailBody.error.details?.map(({ field, problem }) => ({ field, problem })), [
    { field: "Email", problem: "format" },
  ]);
  assert.equal((await listInquiries()).length, before, "nothing was stored");
});

test("POST /api/v1/contact answers validation-failed for numbers, arrays, objects and null", async () => {
  const valid = { Name: "Gil Neves", Email: "gil@example.pt", Message: "Hello" };
  const wrongValues: unknown[] = [42, ["Gil"], { first: "Gil" }, null, true];
  for (const field of ["Name", "Email", "Message", "Category", "utm_source", "gclid"]) {
    for (const value of wrongValues) {
      const response = await postJson({ ...valid, [field]: value });
      const label = `${field} = ${JSON.stringify(value)}`;
      assert.equal(response.status, 400, label);
      const body = await readError(response, "validation-failed");
      assert.equal(body.error.message, `Field "${field}" is invalid`, label);
      assert.equal(body.error.hint, `Send "${field}" as a string`, label);
      assert.deepEqual(
        body.error.details?.map(({ field, problem }) => ({ field, problem })),
        [{ field, problem: "type" }],
        label,
      );
    }
  }

  const all = await postJson({ Name: 1, Email: ["a@b.pt"], Message: { text: "x" }, gclid: 7 });
  assert.equal(all.status, 400);
  const body = await readError(all, "validation-failed");
  assert.equal(body.error.hint, 'Send "Name" as a string');
  assert.deepEqual(body.error.details?.map((item) => item.field), [
    "Name",
    "Email",
    "Message",
    "gclid",
  ]);
});

test("POST /api/v1/contact answers bad-form for malformed JSON and JSON that is not an object", async () => {
  const cases: Array<[string, RegExp]> = [
    ['{"Name": "Ana",', /not valid JSON/],
    ["{Name: 'Ana'}", /not valid JSON/],
    ["", /not valid JSON/],
    ['[{"Name":"Ana","Email":"ana@example.pt","Message":"Hi"}]', /not an object/],
    ['"Name=Ana"', /not an object/],
    ["42", /not an object/],
    ["null", /not an object/],
  ];
  for (const [text, message] of cases) {
    const response = await post("/api/v1/contact", text, { "Content-Type": "application/json" });
    await readBadForm(response, message);
  }
});

test("POST /api/v1/contact answers bad-form for malformed multipart bodies", async () => {
  const part = '--abc\r\nContent-Disposition: form-data; name="Name"\r\n\r\nAna\r\n--abc--\r\n';
  const cases: Array<[string, string]> = [
    ["multipart/form-data; boundary=abc", "this is not multipart"],
    ["multipart/form-data; boundary=abc", ""],
    ["multipart/form-data", part],
  ];
  for (const [contentType, body] of cases) {
    const response = await post("/api/v1/contact", body, { "Content-Type": contentType });
    await readBadForm(response, /multipart body does not parse/);
  }
});

test(
  "POST /api/v1/contact answers bad-form for a multipart body without its closing delimiter",
  {},
  async () => {
    const truncated = '--abc\r\nContent-Disposition: form-data; name="Name"\r\n\r\nAna Sousa\r\n' +
      '--abc\r\nContent-Disposition: form-data; name="Email"\r\n\r\nana@example.pt\r\n' +
      '--abc\r\nContent-Disposition: form-data; name="Message"\r\n\r\nHel';
    const response = await post("/api/v1/contact", truncated, {
      "Content-Type": "multipart/form-data; boundary=abc",
    });
    await readBadForm(response, /multipart body does not parse/);
  },
);

test("POST /api/v1/contact answers bad-form naming the three media types for other content types", async () => {
  const json = JSON.stringify({ Name: "Hugo", Email: "hugo@example.pt", Message: "Hi" });
  const bytes = new TextEncoder().encode(json);
  const cases: Array<[Record<string, string>, BodyInit | null, RegExp]> = [
    [{ "Content-Type": "text/plain" }, json, /Content-Type "text\/plain" is not accepted/],
    [{ "Content-Type": "application/xml" }, "<Name>Hugo</Name>", /"application\/xml"/],
    [{ "Content-Type": "application/json-seq" }, json, /"application\/json-seq"/],
    [{}, bytes, /Content-Type is missing/],
    [{}, null, /Content-Type is missing/],
  ];
  for (const [headers, body, message] of cases) {
    const request = buildRequest("/api/v1/contact", { method: "POST", headers, body });
    if (!headers["Content-Type"]) assert.equal(request.headers.get("Content-Type"), null);
    const response = await handler(request, CLIENT);
    const error = await readBadForm(response, message);
    assert.ok(error.error.hint.includes("64 KiB"), error.error.hint);
  }
});

test("POST /api/v1/contact accepts charset=utf-8 in any case and refuses other charsets", async () => {
  const message = uniqueMessage("Charset UTF-8");
  const accepted = await post(
    "/api/v1/contact",
    JSON.stringify({ Name: "Inês Rocha", Email: "ines@example.pt", Message: message }),
    { "Content-Type": 'Application/JSON; Charset="UTF-8"' },
  );
  assert.equal(accepted.status, 200);
  await readSuccess(accepted);
  assert.equal((await findInquiry(message)).fields.Name, "Inês Rocha");

  const latin1 = new Uint8Array([
    ...new TextEncoder().encode('{"Name":"In'),
    0xea, // "ê" in ISO-8859-1
    ...new TextEncoder().encode('s","Email":"ines@example.pt","Message":"Hi"}'),
  ]);
  for (
    const contentType of [
      "application/json; charset=latin1",
      "application/json; charset=ISO-8859-1",
      "application/x-www-form-urlencoded; charset=windows-1252",
      "multipart/form-data; boundary=abc; charset=latin1",
    ]
  ) {
    const response = await post("/api/v1/contact", latin1, { "Content-Type": contentType });
    await readBadForm(response, /Charset ".+" is not accepted/);
  }
});

test("POST /api/v1/contact answers bad-form for invalid UTF-8 bytes", async () => {
  const encoder = new TextEncoder();
  const invalidSequences = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]];
  for (const sequence of invalidSequences) {
    const json = new Uint8Array([
      ...encoder.encode('{"Name":"Ana'),
      ...sequence,
      ...encoder.encode('","Email":"ana@example.pt","Message":"Hi"}'),
    ]);
    const response = await post("/api/v1/contact", json, { "Content-Type": "application/json" });
    await readBadForm(response, /not valid UTF-8/);
  }
  const form = new Uint8Array([
    ...encoder.encode("Name=Ana"),
    0xff,
    ...encoder.encode("&Email=ana%40example.pt&Message=Hi"),
  ]);
  const response = await post("/api/v1/contact", form, {
    "Content-Type": "application/x-www-form-urlencoded",
  });
  await readBadForm(response, /not valid UTF-8/);
});

test(
  "POST /api/v1/contact answers bad-form for invalid UTF-8 in a multipart field",
  {},
  async () => {
    const encoder = new TextEncoder();
    const body = new Uint8Array([
      ...encoder.encode('--abc\r\nContent-Disposition: form-data; name="Name"\r\n\r\nAna'),
      0xff,
      ...encoder.encode(
        '\r\n--abc\r\nContent-Disposition: form-data; name="Email"\r\n\r\nana@example.pt' +
          '\r\n--abc\r\nContent-Disposition: form-data; name="Message"\r\n\r\nHi\r\n--abc--\r\n',
      ),
    ]);
    const response = await post("/api/v1/contact", body, {
      "Content-Type": "multipart/form-data; boundary=abc",
    });
    await readBadForm(response, /not valid UTF-8/);
  },
);

test("POST /api/v1/contact accepts a body of exactly 64 KiB and refuses one byte more", async () => {
  const message = uniqueMessage("Exactly 64 KiB");
  const json = JSON.stringify({ Name: "João Pinto", Email: "joao@example.pt", Message: message });
  const size = new TextEncoder().encode(json).byteLength;
  const exact = json.slice(0, -1) + " ".repeat(MAX_BODY_BYTES - size) + "}";
  assert.equal(new TextEncoder().encode(exact).byteLength, MAX_BODY_BYTES);

  const accepted = await post("/api/v1/contact", exact, {
    "Content-Type": "application/json",
    "Content-Length": String(MAX_BODY_BYTES),
  });
  assert.equal(accepted.status, 200);
  await readSuccess(accepted);
  assert.equal((await findInquiry(message)).fields.Name, "João Pinto");

  const over = exact.slice(0, -1) + " }";
  const withLength = await post("/api/v1/contact", over, {
    "Content-Type": "application/json",
    "Content-Length": String(MAX_BODY_BYTES + 1),
  });
  await readBadForm(withLength, /larger than 64 KiB/);

  const withoutLength = await post("/api/v1/contact", over, {
    "Content-Type": "application/json",
  });
  await readBadForm(withoutLength, /larger than 64 KiB/);
});

/** A JSON-whitespace stream of `chunkBytes` chunks that counts what was pulled from it. */
function createCountingStream(chunkBytes: number, totalBytes: number) {
  const counter = { pulledBytes: 0, cancelled: false };
  const chunk = new TextEncoder().encode(" ".repeat(chunkBytes));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulledBytes >= totalBytes) {
        controller.close();
        return;
      }
      counter.pulledBytes += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
    cancel() {
      counter.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, counter };
}

test("POST /api/v1/contact refuses a body declared over 64 KiB without reading it", async () => {
  const { stream, counter } = createCountingStream(16 * 1024, 10 * 1024 * 1024);
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    body: stream,
    duplex: "half",
    headers: { "Content-Type": "application/json", "Content-Length": String(10 * 1024 * 1024) },
  };
  const response = await handler(buildRequest("/api/v1/contact", init), CLIENT);
  await readBadForm(response, /larger than 64 KiB/);
  assert.equal(counter.pulledBytes, 0, "nothing was read");
  assert.equal(counter.cancelled, true, "the body was cancelled");
});

test("POST /api/v1/contact refuses a chunked body over 64 KiB as it streams", async () => {
  const chunkBytes = 16 * 1024;
  const { stream, counter } = createCountingStream(chunkBytes, 10 * 1024 * 1024);
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    body: stream,
    duplex: "half",
    headers: { "Content-Type": "application/json" },
  };
  const request = buildRequest("/api/v1/contact", init);
  assert.equal(request.headers.get("Content-Length"), null);
  const response = await handler(request, CLIENT);
  await readBadForm(response, /larger than 64 KiB/);
  assert.ok(
    counter.pulledBytes <= MAX_BODY_BYTES + chunkBytes,
    `read ${counter.pulledBytes} bytes, at most the limit and one chunk`,
  );
  assert.ok(counter.pulledBytes > MAX_BODY_BYTES, "read until it passed the limit");
  assert.equal(counter.cancelled, true, "the rest of the body was cancelled");
});

test("POST /api/v1/contact rejects an Email with CR LF as an invalid address", async () => {
  const before = (await listInquiries()).length;
  for (
    const email of [
      "ana@example.pt\r\nBcc: x@evil.example",
      "ana@example.pt\nBcc: x@evil.example",
      "ana@example.pt\r\n x@evil.example",
      "Ana <ana@example.pt>",
      "ana@example.pt, x@evil.example",
    ]
  ) {
    const response = await postJson({ Name: "Ana", Email: email, Message: "Hello" });
    assert.equal(response.status, 400, JSON.stringify(email));
    const body = await readError(response, "validation-failed");
    assert.deepEqual(body.error.details?.map(({ field, problem }) => ({ field, problem })), [
      { field: "Email", problem: "format" },
    ]);
  }
  assert.equal((await listInquiries()).length, before, "nothing was stored");
});

test("POST /api/v1/contact keeps CR LF in Name and Category out of the mail headers", async () => {
  const message = uniqueMessage("Header injection");
  const name = "Ana\r\nBcc: x@evil.example";
  const category = "website\r\nBcc: y@evil.example\u2028Cc: z@evil.example";
  const response = await postJson({
    Name: name,
    Email: "ana.crlf@example.pt",
    Message: message,
    Category: category,
  });
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.equal(record.fields.Name, name, "stored as sent");
  const mail = await receiveMail(record);
  assertRouting(mail, "ana.crlf@example.pt");
  assert.equal(
    mail.parsed.subject,
    "Novo contacto: Ana Bcc: x@evil.example · website Bcc: y@evil.example Cc: z@evil.example",
  );
  const headerNames = mail.parsed.headers.map((header) => header.key);
  assert.deepEqual(headerNames.filter((key) => key === "bcc" || key === "cc"), []);
  assert.equal(headerNames.filter((key) => key === "to").length, 1);
  assert.doesNotMatch(mail.raw.split("\r\n\r\n")[0], /^(bcc|cc):/im);
  assert.ok(!mail.envelopeTo.some((address) => address.endsWith("evil.example")));
});

test("POST /api/v1/contact escapes HTML in the HTML part and keeps it verbatim in the text", async () => {
  const message = uniqueMessage("<script>alert(\"x\")</script> & <b>bold</b> 'quoted'");
  const response = await postJson({
    Name: '<img src=x onerror="alert(1)">',
    Email: "html@example.pt",
    Message: message,
    Category: "<i>web</i>",
    utm_source: "<a href=//evil.example>x</a>",
  });
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  const mail = await receiveMail(record);
  const html = mail.parsed.html ?? "";
  assert.ok(
    html.includes(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt; &#39;quoted&#39;",
    ),
    html,
  );
  assert.ok(html.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"), html);
  assert.ok(html.includes("&lt;i&gt;web&lt;/i&gt;"), html);
  assert.ok(html.includes("&lt;a href=//evil.example&gt;x&lt;/a&gt;"), html);
  for (const raw of ["<script", "<img", "<i>", "<b>", "<a href"]) {
    assert.ok(!html.includes(raw), `raw ${raw} in the HTML part`);
  }
  assert.ok((mail.parsed.text ?? "").includes(message), "the text part is verbatim");
});

/** A store whose atomic commits reject, as a store that lost its backend does. */
class FailingAtomicOperation implements AtomicOperation {
  check(..._checks: AtomicCheck[]): this {
    return this;
  }
  set(_key: KvKey, _value: unknown, _options?: KvSetOptions): this {
    return this;
  }
  delete(_key: KvKey): this {
    return this;
  }
  commit(): Promise<never> {
    return Promise.reject(new Error("database is locked: /var/lib/studio/secret.kv"));
  }
}

test("POST /api/v1/contact answers 500 no-backend and stores nothing when the commit fails", async () => {
  const inner = createMemoryStore();
  const failing: Store = {
    get: (key) => inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (selector, options) => inner.list(selector, options),
    atomic: () => new FailingAtomicOperation(),
    close: () => inner.close(),
  };
  const failingLogger = createRecordingLogger();
  const failingOutbox = createOutbox({ store: failing, mailer, clock, logger: failingLogger });
  const failingHandler = createSampleHandler({
    store: failing,
    clock,
    logger: failingLogger,
    outbox: failingOutbox,
    mailFrom: MAIL_FROM,
    inbox: INBOX,
  });
  const delivered = smtp.messages.length;
  const response = await failingHandler(
    buildRequest("/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Luís", Email: "luis@example.pt", Message: "Olá" }),
    }),
    CLIENT,
  );
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("Retry-After"), null);
  const body = await readError(response, "no-backend");
  assert.match(body.error.hint, /retry/i);
  assert.match(body.error.hint, /e-mail/);
  assert.ok(!JSON.stringify(body).includes("database is locked"), "no internal detail");

  await failingOutbox.idle();
  assert.deepEqual(await listEntries(inner, ["inquiry"]), []);
  assert.deepEqual(await listEntries(inner, ["outbox"]), []);
  assert.deepEqual(await listEntries(inner, []), [], "nothing at all was written");
  assert.equal(smtp.messages.length, delivered, "no mail was sent");
  const errors = failingLogger.records.filter((record) => record.level === "error");
  assert.deepEqual(errors.map((record) => record.message), ["Could not store an inquiry"]);
  assert.match(String(errors[0].fields?.error), /database is locked/);
});

test("POST /api/v1/contact answers 200 and stores the inquiry when the commit was refused once by a locked KV file", async () => {
  // A second process holding the KV file's lock: SQLite refuses the commit before writing anything.
  const inner = createMemoryStore();
  let inquiryCommits = 0;
  const lockedOnce: Store = {
    ...inner,
    atomic() {
      const operation = inner.atomic();
      // Each attempt builds its operation anew: the inquiry's are those that write an inquiry.
      let writesInquiry = false;
      const set = operation.set.bind(operation);
      const commit = operation.commit.bind(operation);
      operation.set = (key, value, options) => {
        writesInquiry ||= key[0] === "inquiry";
        return set(key, value, options);
      };
      operation.commit = () => {
        if (!writesInquiry) return commit();
        inquiryCommits++;
        return inquiryCommits === 1
          ? Promise.reject(new TypeError("database is locked"))
          : commit();
      };
      return operation;
    },
  };
  const lockedLogger = createRecordingLogger();
  const lockedOutbox = createOutbox({ store: lockedOnce, mailer, clock, logger: lockedLogger });
  const lockedHandler = createSampleHandler({
    store: lockedOnce,
    clock,
    logger: lockedLogger,
    outbox: lockedOutbox,
    mailFrom: MAIL_FROM,
    inbox: INBOX,
    rateLimits: { write: 1000 },
  });
  const message = uniqueMessage("Locked once");
  const response = await lockedHandler(
    buildRequest("/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Luís", Email: "luis@example.pt", Message: message }),
    }),
    CLIENT,
  );
  assert.equal(response.status, 200);
  await readSuccess(response);
  assert.equal(inquiryCommits, 2, "the refused commit was tried once more");
  const inquiries = await listInquiries(lockedOnce);
  assert.equal(inquiries.length, 1);
  assert.equal(inquiries[0].fields.Message, message);
  await lockedOutbox.idle();
  await lockedOutbox.stop();
  assert.deepEqual(lockedLogger.records.filter((record) => record.level === "error"), []);
  inner.close();
});

test("POST /api/v1/contact answers only after one atomic commit holds each inquiry and its outbox entry, also when inquiries arrive together", async () => {
  // A crash between two commits could keep an inquiry whose mail is never sent, or send mail for
  // an inquiry that was not kept: the store must see both in one commit, before the answer.
  const inner = createMemoryStore();
  const commits: string[][] = [];
  const recording: Store = {
    ...inner,
    atomic() {
      const operation = inner.atomic();
      const keys: string[] = [];
      const set = operation.set.bind(operation);
      const commit = operation.commit.bind(operation);
      operation.set = (key, value, options) => {
        keys.push(String(key[0]));
        return set(key, value, options);
      };
      operation.commit = () => {
        commits.push(keys);
        return commit();
      };
      return operation;
    },
  };
  const held: Mailer = { send: () => new Promise(() => {}) }; // Delivery is not looked at here.
  const heldOutbox = createOutbox({ store: recording, mailer: held, clock, logger });
  const together = createSampleHandler({
    store: recording,
    clock,
    logger,
    outbox: heldOutbox,
    mailFrom: MAIL_FROM,
    inbox: INBOX,
    rateLimits: { write: 1000 },
  });
  const responses = await Promise.all(Array.from({ length: 6 }, (_, index) =>
    together(
      buildRequest("/api/v1/contact", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ Name: `Ana ${index}`, Email: "ana@example.pt", Message: "Olá" }),
      }),
      CLIENT,
    )));
  for (const response of responses) {
    assert.equal(response.status, 200);
    await readSuccess(response);
  }
  const inquiryCommits = commits.filter((keys) => keys.includes("inquiry"));
  assert.ok(inquiryCommits.length < 6, `${inquiryCommits.length} commits for 6 inquiries`);
  for (const keys of inquiryCommits) {
    const count = (name: string) => keys.filter((key) => key === name).length;
    assert.ok(count("inquiry") >= 1);
    assert.equal(count("outbox"), count("inquiry"), "each inquiry with its mail");
    assert.equal(count("outbox_due"), count("inquiry"), "each mail due");
  }
  const inquiries = await listInquiries(inner);
  assert.equal(inquiries.length, 6);
  for (const record of inquiries) {
    assert.equal(record.mailIds.length, 1);
    assert.ok((await inner.get(["outbox", record.mailIds[0]])).value, "its mail waits");
  }
  inner.close();
});

test("POST /api/v1/contact answers the 11th write in 60 s 429 with Retry-After", async () => {
  const quotaClock = createFixedClock("2026-11-21T10:00:15Z");
  const quotaStore = createMemoryStore();
  const quotaHandler = createSampleHandler({ store: quotaStore, clock: quotaClock, logger });
  const client = fromAddress("192.0.2.50");
  const send = (name: string) =>
    quotaHandler(
      buildRequest("/api/v1/contact", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ Name: name, Email: "quota@example.pt", Message: "Hello" }),
      }),
      client,
    );
  for (let index = 0; index < 10; index++) {
    const response = await send(`Quota ${index}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("RateLimit-Policy"), '"write";q=10;w=60');
    assert.equal(response.headers.get("RateLimit-Limit"), "10");
    assert.equal(response.headers.get("RateLimit-Remaining"), String(9 - index));
    assert.equal(response.headers.get("RateLimit"), `"write";r=${9 - index};t=45`);
    assert.deepEqual(await response.json(), { ok: true });
  }
  const limited = await send("Quota 10");
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("Retry-After"), "45");
  assert.equal(limited.headers.get("RateLimit-Policy"), '"write";q=10;w=60');
  assert.equal(limited.headers.get("RateLimit"), '"write";r=0;t=45');
  assert.equal(limited.headers.get("RateLimit-Limit"), "10");
  assert.equal(limited.headers.get("RateLimit-Remaining"), "0");
  assert.equal(limited.headers.get("RateLimit-Reset"), "45");
  await readError(limited, "rate-limited");
  assert.equal((await listInquiries(quotaStore)).length, 10, "the 11th was not stored");

  const alias = await quotaHandler(
    buildRequest("/api/fuel-contact", { method: "POST", body: "x" }),
    client,
  );
  assert.equal(alias.status, 429, "the alias shares the quota");
  assert.equal(alias.headers.get("Link"), '</api/v1/contact>; rel="latest-version"');
  await readError(alias, "rate-limited");

  quotaClock.advance({ seconds: 45 });
  const next = await send("Quota 11");
  assert.equal(next.status, 200, "the quota is back when the window ends");
  assert.equal(next.headers.get("RateLimit-Remaining"), "9");
  assert.deepEqual(await next.json(), { ok: true });
});

test("POST /api/v1/contact ignores unknown fields and does not store them", async () => {
  const message = uniqueMessage("Unknown fields");
  const response = await post(
    "/api/v1/contact",
    JSON.stringify({
      Name: "Marta Reis",
      Email: "marta@example.pt",
      Message: message,
      name: "lower-case name",
      Phone: "+351 912 345 678",
      admin: true,
      mailIds: ["forged"],
      fields: { Name: "forged" },
      nested: { deep: [1, 2, 3] },
      utm_id: "not-a-field",
    }),
    { "Content-Type": "application/json" },
  );
  assert.equal(response.status, 200);
  await readSuccess(response);

  const record = await findInquiry(message);
  assert.deepEqual(record.fields, {
    Name: "Marta Reis",
    Email: "marta@example.pt",
    Message: message,
  });
  assert.deepEqual(Object.keys(record).sort(), [
    "clientAddress",
    "fields",
    "id",
    "mailIds",
    "receivedAt",
  ]);
  assert.notDeepEqual(record.mailIds, ["forged"]);
  const stored = await store.get<InquiryRecord>(["inquiry", record.id]);
  const serialised = JSON.stringify(stored.value);
  for (const value of ["lower-case name", "+351", "admin", "forged", "not-a-field", "deep"]) {
    assert.ok(!serialised.includes(value), `${value} is not stored`);
  }
  const mail = await receiveMail(record);
  assert.ok(!(mail.parsed.text ?? "").includes("+351"), "nor mailed");

  const formMessage = uniqueMessage("Unknown form fields");
  const form = await post(
    "/api/v1/contact",
    buildForm([
      ["Name", "Marta"],
      ["Email", "marta@example.pt"],
      ["Message", formMessage],
      ["website", "spam.example"],
      ["Company", "Reis Lda"],
    ]),
  );
  assert.equal(form.status, 200);
  await readSuccess(form);
  assert.deepEqual((await findInquiry(formMessage)).fields, {
    Name: "Marta",
    Email: "marta@example.pt",
    Message: formMessage,
  });
});

test("POST /api/v1/contact drops optional fields left blank", async () => {
  const message = uniqueMessage("Blank optional fields");
  const response = await postJson({
    Name: "Nuno",
    Email: "nuno@example.pt",
    Message: message,
    Category: "   ",
    utm_source: "",
    gclid: "\n",
  });
  assert.equal(response.status, 200);
  await readSuccess(response);
  const record = await findInquiry(message);
  assert.deepEqual(record.fields, { Name: "Nuno", Email: "nuno@example.pt", Message: message });
  const mail = await receiveMail(record);
  assert.equal(mail.parsed.subject, "Novo contacto: Nuno");
});

test("POST /api/v1/contact answers 400 validation-failed, not 500, for {toString} objects and arrays nested 3000 deep", async () => {
  const nested = JSON.parse("[".repeat(3000) + "]".repeat(3000));
  for (const Name of [{ toString: 1 }, { valueOf: 1, toString: 1 }, nested]) {
    const response = await postJson({ Name, Email: "ana@example.pt", Message: "Olá" });
    assert.equal(response.status, 400);
    const body = await readError(response, "validation-failed");
    assert.deepEqual(body.error.details, [
      { field: "Name", problem: "type", hint: 'Send "Name" as a string' },
    ]);
  }
});
