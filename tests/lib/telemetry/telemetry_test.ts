import { test } from "node:test";
import assert from "node:assert/strict";
import { ProxyTracerProvider, trace } from "@opentelemetry/api";
import {
  isTracingOn,
  toErrorType,
  toRedactedUrl,
  traceRequests,
  traceToolCall,
  withSpan,
} from "../../../lib/telemetry/telemetry.ts";
import { ApiError } from "../../../lib/contract/api_error.ts";

test("toRedactedUrl() replaces every query value, and names that are not tokens", () => {
  assert.deepEqual(
    toRedactedUrl("http://127.0.0.1:8000/team/calendar.ics?key=s3cr3t#frag"),
    {
      full: "http://127.0.0.1:8000/team/calendar.ics?key=REDACTED",
      query: "key=REDACTED",
    },
  );
  assert.deepEqual(
    toRedactedUrl("https://studio.example/equipa?q=rita%40example.pt&rita@example.pt&notice"),
    {
      full: "https://studio.example/equipa?q=REDACTED&REDACTED&notice=REDACTED",
      query: "q=REDACTED&REDACTED&notice=REDACTED",
    },
  );
  assert.equal(toRedactedUrl("https://studio.example/en/"), undefined);
  assert.deepEqual(toRedactedUrl("https://studio.example/?"), {
    full: "https://studio.example/?",
    query: "",
  });
});

test("toErrorType() gives an ApiError's code or an error's name, never its message", () => {
  assert.equal(
    toErrorType(
      new ApiError("no-backend", { status: 503, message: "rita@example.pt", hint: "Retry" }),
    ),
    "no-backend",
  );
  assert.equal(toErrorType(new TypeError("rita@example.pt")), "TypeError");
  assert.equal(toErrorType("rita@example.pt"), "_OTHER");
});

test("without a tracer provider, the wrappers give back what they wrap and withSpan() runs", async () => {
  // The suite runs without OTEL_DENO: the API holds its proxy, whose spans record nothing.
  assert.ok(trace.getTracerProvider() instanceof ProxyTracerProvider);
  assert.equal(isTracingOn(), false);
  const handler = () => Promise.resolve(new Response("ok"));
  assert.equal(traceRequests(handler), handler);
  const tool = (month: string) => ({ content: [], month });
  assert.equal(traceToolCall("list_available_slots", tool), tool);
  let seen: unknown = "unset";
  assert.equal(
    await withSpan("read body", {}, (span) => {
      seen = span;
      return Promise.resolve(7);
    }),
    7,
  );
  assert.equal(seen, undefined);
  await assert.rejects(
    withSpan("smtp send", {}, () => Promise.reject(new Error("refused")), "client"),
    /refused/,
  );
});
