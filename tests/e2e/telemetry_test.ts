/**
 * OpenTelemetry on Deno, end to end: the real service with `OTEL_DENO=true` and the console
 * exporter (`OTEL_EXPORTER_OTLP_PROTOCOL=console`: spans, metrics and log records on standard
 * error), a real SMTP server, and what a collector would receive read from the process's output.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { RUNTIME } from "../_kv.ts";
import { startServer } from "./_server.ts";
import { startSmtpServer } from "../_smtp.ts";
import { nextMonth } from "./_studio.ts";
import { RESCHEDULE_PATH } from "../../lib/booking/signed_links.ts";
import { CALENDAR_FEED_PATH } from "../../lib/team/calendar_feed_path.ts";

/** What the inquiry says about its sender: none of it may reach telemetry. */
const PERSON = {
  Name: "Telemetria Quintanilha",
  Email: "quintanilha.otel@example.pt",
  Message: "Uma loja para a nossa padaria de Quintanilha, por favor.",
};
/** A reschedule link's signature and a calendar feed's key, as capabilities are: 43 base64url. */
const SIGNATURE = "SigTelemetryProbe0000000000000000000000000A";
const FEED_KEY = "KeyTelemetryProbe000000000000000000000000B";

/** One record of the console exporter: its first line (`SPAN name [ids] Kind …`) and the rest. */
interface ExportedRecord {
  head: string;
  lines: string[];
}

/** The records (`SPAN`, `METRIC`, `LOG`) the console exporter printed, in order. */
function readRecords(output: string): ExportedRecord[] {
  const records: ExportedRecord[] = [];
  for (const line of output.split("\n")) {
    if (/^(SPAN|METRIC|LOG) /.test(line)) records.push({ head: line, lines: [] });
    else if (records.length && line.startsWith("  ")) records.at(-1)?.lines.push(line.trim());
  }
  return records;
}

/** The last value a span's attribute was given (a later `setAttribute` comes later). */
function lastAttribute(record: ExportedRecord, name: string): string | undefined {
  return record.lines.filter((line) => line.startsWith(`${name}: `)).at(-1)?.slice(name.length + 2);
}

/**
 * Runs the service with `OTEL_DENO=true` and the console exporter (Deno's own HTTP tracing on or
 * off), sends it a slots listing, a contact inquiry, a reschedule link with a signature and a
 * calendar-feed request with a key, and returns what the exporter printed and the records.
 */
async function runTraced(denoTracing: boolean) {
  const folder = mkdtempSync(join(tmpdir(), "studio-telemetry-"));
  const smtp = await startSmtpServer();
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_INBOX: "inbox@studio.example",
    OTEL_DENO: "true",
    ...(denoTracing ? {} : { OTEL_DENO_TRACING: "false" }),
    OTEL_EXPORTER_OTLP_PROTOCOL: "console",
    OTEL_METRIC_EXPORT_INTERVAL: "500",
  });
  try {
    const slots = await fetch(`${server.origin}/api/v1/booking/slots?month=${nextMonth()}`);
    assert.equal(slots.status, 200);
    await slots.body?.cancel();
    const contact = await fetch(`${server.origin}/api/v1/contact`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(PERSON),
    });
    assert.equal(contact.status, 200);
    assert.deepEqual(await contact.json(), { ok: true });
    const link = `${RESCHEDULE_PATH}?id=01KB0000000000000000000000&seq=0&sig=${SIGNATURE}`;
    const reschedule = await fetch(`${server.origin}${link}`);
    assert.ok(reschedule.status >= 400 && reschedule.status < 500, "a link not signed by us");
    await reschedule.body?.cancel();
    const feed = await fetch(`${server.origin}${CALENDAR_FEED_PATH}?key=${FEED_KEY}`);
    assert.equal(feed.status, 404);
    await feed.body?.cancel();
    const deadline = Date.now() + 15_000;
    while (!smtp.messages.length && Date.now() < deadline) await delay(20);
    assert.equal(smtp.messages.length, 1, "the inquiry was delivered");
    // A collection of the metrics after the delivery (every 500 ms).
    await delay(1200);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  const output = server.output();
  const records = readRecords(output);
  const spans = records.filter((record) => record.head.startsWith("SPAN "));
  return { output, records, spans };
}

/** The spans, metrics and redaction every mode of `runTraced` must show. */
function assertTraced({ output, records, spans }: Awaited<ReturnType<typeof runTraced>>) {
  const slotsSpan = spans.find((span) => span.head.startsWith("SPAN GET /api/v1/booking/slots "));
  assert.ok(slotsSpan, `a span named "GET /api/v1/booking/slots":\n${output.slice(0, 4000)}`);
  assert.match(slotsSpan.head, /\] Server /);
  assert.equal(lastAttribute(slotsSpan, "http.route"), "/api/v1/booking/slots");
  assert.equal(lastAttribute(slotsSpan, "url.query"), "month=REDACTED");
  const contactSpan = spans.find((span) => span.head.startsWith("SPAN POST /api/v1/contact "));
  assert.equal(contactSpan && lastAttribute(contactSpan, "http.route"), "/api/v1/contact");

  const own = spans.filter((span) => span.lines.includes("scope: studio-website"));
  const ownNames = new Set(own.map((span) => span.head.split(" [")[0].slice(5)));
  assert.ok(ownNames.has("read body"), `the service's spans: ${[...ownNames]}`);
  assert.ok(ownNames.has("smtp send"), `the service's spans: ${[...ownNames]}`);
  const smtpSpan = own.find((span) => span.head.startsWith("SPAN smtp send "));
  assert.match(smtpSpan?.head ?? "", /\] Client /);
  assert.equal(smtpSpan && lastAttribute(smtpSpan, "server.address"), "127.0.0.1");

  const metricNames = records.filter((record) => record.head.startsWith("METRIC "))
    .map((record) => record.head.split(" ")[1]);
  for (const name of ["studio.inquiries", "studio.outbox.queue.depth"]) {
    assert.ok(metricNames.includes(name), `metric ${name}: ${[...new Set(metricNames)]}`);
  }
  const inquiries = records.find((record) => record.head.startsWith("METRIC studio.inquiries "));
  assert.ok(inquiries?.lines.includes("{outcome=accepted} value=1"), inquiries?.lines.join("\n"));

  // No personal data anywhere: not in a span, a metric or a log record.
  for (const value of Object.values(PERSON)) {
    assert.ok(!output.includes(value), `"${value}" reached telemetry`);
  }
  assert.ok(!output.includes("Quintanilha"), "the sender's name reached telemetry");
}

test(
  "OTEL_DENO=true OTEL_DENO_TRACING=false: the service's own server spans, named by route, and its spans and metrics reach the exporter with no personal data, no signature and no key",
  { skip: RUNTIME !== "deno" && "OTEL_DENO is Deno's exporter" },
  async () => {
    const traced = await runTraced(false);
    assertTraced(traced);
    for (const value of [SIGNATURE, FEED_KEY]) {
      assert.ok(!traced.output.includes(value), `"${value}" reached telemetry`);
    }
    const slots = traced.spans.find((span) =>
      span.head.startsWith("SPAN GET /api/v1/booking/slots ")
    );
    assert.ok(
      slots?.lines.includes("scope: studio-website"),
      "the server span is the service's own",
    );
    assert.doesNotMatch(traced.output, /OTEL_DENO_TRACING=false/, "no warning");
  },
);

test(
  "OTEL_DENO=true with Deno's own HTTP tracing: spans named by route, the service's URL redacted, and a warning that Deno's span keeps the query",
  { skip: RUNTIME !== "deno" && "OTEL_DENO is Deno's exporter" },
  async () => {
    const traced = await runTraced(true);
    assertTraced(traced);
    const { output, spans } = traced;
    // The capabilities: each span's URL as the service left it is redacted. Deno 2.9 records the
    // URL as it came before the handler runs, and `setAttribute` adds a value rather than replace
    // it, so the runtime's first value still holds the query (see the README, Observability).
    for (const [name, value] of [["sig", SIGNATURE], ["key", FEED_KEY]]) {
      const span = spans.find((record) => record.lines.some((line) => line.includes(value)));
      assert.ok(span, `the request with ${name} has a span`);
      assert.match(lastAttribute(span, "url.query") ?? "", new RegExp(`(^|&)${name}=REDACTED$`));
      assert.match(lastAttribute(span, "url.full") ?? "", new RegExp(`[?&]${name}=REDACTED$`));
      const leaks = output.split("\n").filter((line) => line.includes(value));
      assert.deepEqual(
        leaks.map((line) => line.trim().split(":")[0]),
        ["url.full", "url.query"],
        `the ${name} appears only in the runtime's own first url.full and url.query`,
      );
    }
    assert.match(output, /"level":"warn".*OTEL_DENO_TRACING=false/);
  },
);
