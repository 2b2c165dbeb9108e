import { test } from "node:test";
import assert from "node:assert/strict";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { createPipeline } from "../../../lib/http/create_pipeline.ts";
import { createBodyReader } from "../../../lib/http/read_body.ts";
import { resolveServices } from "../../../lib/resolve_services.ts";
import type { RouteDefinition } from "../../../lib/http/route.ts";
import { withSpan } from "../../../lib/telemetry/telemetry.ts";
import { STUDIO_DEFAULTS } from "../../_studio_defaults.ts";
import { createRecordingLogger } from "../../_support.ts";
import { type RecordedSpan, registerRecordingTracer } from "./_recording_tracer.ts";

const BASE = "http://localhost:8000";

/** A pipeline over a small table, made while the recording tracer is registered. */
function createTracedPipeline() {
  const services = resolveServices({ logger: createRecordingLogger() }, STUDIO_DEFAULTS);
  const read = createBodyReader({ timeoutMilliseconds: 1000 });
  const table: RouteDefinition[] = [
    {
      method: "GET",
      path: "/team/calendar.ics",
      handle: () => new Response(null, { status: 404 }),
    },
    {
      method: "GET",
      path: "/assets/:name",
      handle: () => new Response("asset", { headers: { "Content-Type": "text/css" } }),
    },
    {
      method: "POST",
      path: "/upload",
      handle: async (request) => {
        const bytes = await read(request, { maxBytes: 100 });
        await withSpan("booking commit", { "db.system.name": "deno_kv" }, () => {
          throw new TypeError("rita@example.pt is refused");
        }).catch(() => {});
        return new Response(String(bytes.byteLength));
      },
    },
  ];
  return createPipeline({
    ...services,
    table,
    fallback: () => new Response("not found", { status: 404 }),
  });
}

/** Every attribute value of the spans, as one text. */
function allValues(spans: RecordedSpan[]): string {
  return JSON.stringify(spans.map((span) => span.attributes));
}

test("createPipeline() with an SDK and no runtime span: its own server span, named by route, URL redacted", async () => {
  const recording = registerRecordingTracer();
  try {
    const handler = createTracedPipeline();
    const feed = await handler(new Request(`${BASE}/team/calendar.ics?key=s3cr3t-feed-key`));
    assert.equal(feed.status, 404);
    await feed.body?.cancel();
    // A patterned route: matched once itty-router has compiled the patterns, after an await.
    const asset = await handler(new Request(`${BASE}/assets/site.css?v=rita%40example.pt`));
    assert.equal(asset.status, 200);
    assert.equal(await asset.text(), "asset");
    const unmatched = await handler(new Request(`${BASE}/nowhere?token=t0k3n`));
    assert.equal(unmatched.status, 404);
    await unmatched.body?.cancel();

    const [feedSpan, assetSpan, unmatchedSpan] = recording.spans;
    assert.equal(recording.spans.length, 3);
    assert.equal(feedSpan.name, "GET /team/calendar.ics");
    assert.equal(feedSpan.kind, SpanKind.SERVER);
    assert.equal(feedSpan.attribute("http.route"), "/team/calendar.ics");
    assert.equal(feedSpan.attribute("http.request.method"), "GET");
    assert.equal(feedSpan.attribute("url.full"), `${BASE}/team/calendar.ics?key=REDACTED`);
    assert.equal(feedSpan.attribute("url.query"), "key=REDACTED");
    assert.equal(feedSpan.attribute("url.path"), "/team/calendar.ics");
    assert.equal(feedSpan.attribute("http.response.status_code"), 404);
    assert.equal(feedSpan.status.code, SpanStatusCode.UNSET);
    assert.equal(feedSpan.ended, true);
    assert.equal(assetSpan.name, "GET /assets/:name");
    assert.equal(assetSpan.attribute("http.route"), "/assets/:name");
    assert.equal(assetSpan.attribute("url.query"), "v=REDACTED");
    assert.equal(assetSpan.ended, true);
    // No route: the name stays the method, and there is no http.route (low cardinality).
    assert.equal(unmatchedSpan.name, "GET");
    assert.equal(unmatchedSpan.attribute("http.route"), undefined);
    const values = allValues(recording.spans);
    for (const secret of ["s3cr3t-feed-key", "rita", "t0k3n"]) {
      assert.ok(!values.includes(secret), `"${secret}" reached a span`);
    }
  } finally {
    recording.disable();
  }
});

test("createPipeline() with a runtime's server span names it and overwrites its URL; the service's spans are its children", async () => {
  const recording = registerRecordingTracer();
  try {
    const handler = createTracedPipeline();
    const runtimeSpan = trace.getTracer("runtime").startSpan("POST", {
      kind: SpanKind.SERVER,
      attributes: { "url.full": `${BASE}/upload?sig=signature-value`, "url.query": "sig=…" },
    });
    const answer = await context.with(
      trace.setSpan(context.active(), runtimeSpan),
      () =>
        handler(new Request(`${BASE}/upload?sig=signature-value`, { method: "POST", body: "abc" })),
    );
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), "3");

    const [server, body, commit] = recording.spans;
    assert.equal(recording.spans.length, 3, "no second server span");
    assert.equal(server.name, "POST /upload");
    assert.equal(server.attribute("http.route"), "/upload");
    assert.equal(server.attribute("url.full"), `${BASE}/upload?sig=REDACTED`);
    assert.equal(server.attribute("url.query"), "sig=REDACTED");
    assert.equal(body.name, "read body");
    assert.equal(body.parent, server);
    assert.equal(body.attribute("http.request.body.size"), 3);
    assert.equal(body.ended, true);
    assert.equal(commit.name, "booking commit");
    assert.equal(commit.parent, server);
    assert.equal(commit.status.code, SpanStatusCode.ERROR);
    assert.equal(commit.attribute("error.type"), "TypeError");
    assert.ok(!allValues([body, commit]).includes("rita"), "an error's message reached a span");
  } finally {
    recording.disable();
  }
});
