/**
 * The service's telemetry, through what `@opentelemetry/api` registered: spans where time goes (a body read, the
 * booking's commit, a busy calendar's fetch, an SMTP delivery, an MCP tool call), the name and
 * route of each request's server span, and counters of outcomes. The API does nothing unless the
 * host registered a provider: Deno does with `OTEL_DENO=true` (nothing to install), and on Node
 * or Bun an OpenTelemetry SDK started before the service does.
 *
 * No personal data and no secret goes into an attribute: no e-mail address, name, message or
 * topic, and every query value is replaced with `REDACTED` (OpenTelemetry's HTTP semantic
 * conventions, `url.query`), since the query carries capabilities (a signed link's `sig`, the
 * calendar feed's `key`, a sign-in `token`) and what people typed (the desk's search).
 *
 * @module
 */
import type {
  Attributes,
  Context,
  ContextManager,
  Meter,
  MeterProvider,
  Span,
  SpanKind,
  SpanStatusCode,
  TextMapGetter,
  TextMapPropagator,
  TracerProvider,
} from "@opentelemetry/api";
import { ApiError } from "../contract/api_error.ts";
import { SERVICE_NAME } from "../contract/contract.ts";
import { readPathname } from "../http/route.ts";

/** The instrumentation scope of every span and instrument of the service. */
export const INSTRUMENTATION_SCOPE: string = SERVICE_NAME;

/** What replaces a query value in telemetry (OpenTelemetry's HTTP semantic conventions). */
export const REDACTED = "REDACTED";

/**
 * Where `@opentelemetry/api` 1.x keeps what a host registered (its global registry, shared by
 * every copy of the API in the process: `globalThis[Symbol.for("opentelemetry.js.api.1")]`).
 * Deno fills it with `OTEL_DENO=true`, before any module runs; an SDK's `start()` (its
 * `trace.setGlobalTracerProvider()`, `context.setGlobalContextManager()`, …) fills it on Node and
 * Bun. The service reads it there rather than importing the API's package, so a start without
 * telemetry loads no package for it (tests/service_config_test.ts).
 */
const API_REGISTRY = Symbol.for("opentelemetry.js.api.1");

/** The key of the active span in a context (the API's `trace.setSpan`/`getSpan`). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/** What a host registered with the API: each member present once registered. */
interface Registry {
  trace?: TracerProvider;
  context?: ContextManager;
  metrics?: MeterProvider;
  propagation?: TextMapPropagator;
}

/** The API's global registry, or `undefined` when no host registered anything. */
function readRegistry(): Registry | undefined {
  return (globalThis as Record<symbol, Registry | undefined>)[API_REGISTRY];
}

/** `SpanKind` and `SpanStatusCode` of the API, by value (enums of a type-only import). */
const KIND = { internal: 0 as SpanKind, server: 1 as SpanKind, client: 2 as SpanKind };
const STATUS_ERROR = 2 as SpanStatusCode;

/** The active span of the registered context manager, as the API's `trace.getActiveSpan()`. */
function getActiveSpan(registry: Registry | undefined): Span | undefined {
  return registry?.context?.active().getValue(SPAN_KEY) as Span | undefined;
}

/**
 * Whether spans go anywhere: a tracer provider is registered with `@opentelemetry/api` (Deno's,
 * with `OTEL_DENO=true`, or an SDK's). Without one, nothing of the service's tracing runs.
 *
 * @returns `true` when spans are recorded and exported.
 */
export function isTracingOn(): boolean {
  return readRegistry()?.trace !== undefined;
}

/** The kind of a span of {@linkcode withSpan}: work inside the service, or a call out of it. */
export type WorkKind = "internal" | "client";

/**
 * Runs `work` in a span of its own, a child of the active span (the request's, in a handler).
 * The span ends when `work` settles; a failure marks it `ERROR` with `error.type` (an
 * `ApiError`'s code, or the error's name), never the error's message, which may quote personal
 * data. Without a tracer provider it runs `work` and nothing else.
 *
 * @param name The span's name: low cardinality (`smtp send`, `tools/call book_call`).
 * @param attributes Its attributes: no personal data, no secret.
 * @param work The work; it gets the span (`undefined` when tracing is off) to add attributes.
 * @param kind `internal` (the default) or `client` (a call to another service).
 * @returns What `work` returns.
 * @throws What `work` throws.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withSpan } from "./telemetry.ts";
 *
 * assert.equal(await withSpan("read body", {}, () => Promise.resolve(3)), 3);
 * ```
 */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
  kind: WorkKind = "internal",
): Promise<T> {
  const provider = readRegistry()?.trace;
  if (!provider) return await work(undefined);
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
  const spanKind = kind === "client" ? KIND.client : KIND.internal;
  return await tracer.startActiveSpan(name, { kind: spanKind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setAttribute("error.type", toErrorType(error));
      span.setStatus({ code: STATUS_ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * What went wrong, in a word fit for `error.type` and an `outcome` attribute: an `ApiError`'s
 * code, or an error's name; never its message.
 *
 * @param error What was thrown.
 * @returns E.g. `no-backend`, `rate-limited`, `TypeError`.
 */
export function toErrorType(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  return error instanceof Error ? error.name : "_OTHER";
}

/**
 * A request URL's `url.full` and `url.query` without what its query says: each value is
 * `REDACTED`, and a name that is not a plain token (letters, digits, `_`, `.`, `-`) is too. The
 * path is cut as the request log cuts it (`readPathname`), and the fragment is dropped.
 *
 * @param href The request's URL, as `Request.url` gives it.
 * @returns The two attributes, or `undefined` when the URL has no query (nothing to redact).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toRedactedUrl } from "./telemetry.ts";
 *
 * assert.deepEqual(toRedactedUrl("https://studio.example/r?id=01J&sig=abc"), {
 *   full: "https://studio.example/r?id=REDACTED&sig=REDACTED",
 *   query: "id=REDACTED&sig=REDACTED",
 * });
 * assert.equal(toRedactedUrl("https://studio.example/en"), undefined);
 * ```
 */
export function toRedactedUrl(href: string): { full: string; query: string } | undefined {
  const start = href.indexOf("?");
  if (start < 0) return undefined;
  const path = readPathname(href);
  const fragment = href.indexOf("#", start);
  const search = href.slice(start + 1, fragment < 0 ? href.length : fragment);
  const query = search.split("&").filter((pair) => pair !== "").map((pair) => {
    const equals = pair.indexOf("=");
    const name = equals < 0 ? pair : pair.slice(0, equals);
    return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? `${name}=${REDACTED}` : REDACTED;
  }).join("&");
  const origin = href.slice(0, href.indexOf("/", href.indexOf("//") + 2));
  return { full: `${origin}${path}?${query}`, query };
}

/** The counters of the service: what each counts, and its unit (UCUM, as OpenTelemetry's). */
const COUNTERS = {
  bookings: {
    name: "studio.bookings",
    description: "Booking requests by outcome: booked, or the refusal's error code",
    unit: "{booking}",
  },
  inquiries: {
    name: "studio.inquiries",
    description: "Contact inquiries by outcome: accepted, or the refusal's error code",
    unit: "{inquiry}",
  },
  deliveryFailures: {
    name: "studio.outbox.delivery.failures",
    description: "Deliveries of the outbox's mail that failed (each retried later)",
    unit: "{failure}",
  },
  remindersSent: {
    name: "studio.reminders.sent",
    description: "Booking reminders queued for delivery",
    unit: "{reminder}",
  },
} as const;

/** The name of one of the service's counters. */
export type CounterName = keyof typeof COUNTERS;

/**
 * Adds one to a counter of the service (`studio.bookings`, `studio.inquiries`,
 * `studio.outbox.delivery.failures`, `studio.reminders.sent`). The counter is asked of the meter
 * at each count: counts are rare (a booking, an inquiry), and a meter provider an SDK registers
 * after start-up is then used too (the API keeps no proxy for meters).
 *
 * @param counter Which counter.
 * @param attributes Its attributes, e.g. `{ outcome: "booked" }`: no personal data.
 */
export function addToCounter(counter: CounterName, attributes: Attributes = {}): void {
  const meters = readRegistry()?.metrics;
  if (!meters) return;
  const { name, description, unit } = COUNTERS[counter];
  meters.getMeter(INSTRUMENTATION_SCOPE).createCounter(name, { description, unit })
    .add(1, attributes);
}

/** A context with `span` active in it, as the API's `trace.setSpan`. */
function setSpan(parent: Context, span: Span): Context {
  return parent.setValue(SPAN_KEY, span);
}

/** Reads a header of a `Headers` for `propagation.extract` (W3C Trace Context). */
const HEADER_GETTER: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** A fetch handler, as the pipeline's (`Handler`): its promise may hold the response ready. */
export type TracedHandler<I> = (
  request: Request,
  info?: I,
) => Promise<Response> & { readonly response?: Response };

/**
 * Wraps a handler so that each request has a server span whose URL carries no query value: the
 * runtime's span when there is one (Deno's, with `OTEL_DENO=true`; Node's HTTP instrumentation's)
 * gets the redacted `url.full` and `url.query` (an SDK replaces the values; Deno 2.9 records them
 * beside its own, see the README's Observability section); without one, the service starts its own
 * (`SpanKind.SERVER`, the parent taken from the `traceparent` header), with the HTTP semantic
 * conventions' attributes and the response's status. Returns `handler` itself when tracing is
 * off, so that a request costs nothing more.
 *
 * @param handler The handler.
 * @returns The handler, traced.
 */
export function traceRequests<I>(handler: TracedHandler<I>): TracedHandler<I> {
  const registry = readRegistry();
  if (!registry?.trace) return handler;
  const tracer = registry.trace.getTracer(INSTRUMENTATION_SCOPE);
  return (request, info) => {
    const runtimeSpan = getActiveSpan(registry);
    const redacted = toRedactedUrl(request.url);
    if (runtimeSpan) {
      if (redacted) {
        runtimeSpan.setAttributes({ "url.full": redacted.full, "url.query": redacted.query });
      }
      return handler(request, info);
    }
    const active = registry.context?.active();
    const parent = active && registry.propagation
      ? registry.propagation.extract(active, request.headers, HEADER_GETTER)
      : active;
    const url = new URL(request.url);
    const span = tracer.startSpan(request.method, {
      kind: KIND.server,
      attributes: {
        "http.request.method": request.method,
        "url.full": redacted?.full ?? request.url,
        "url.scheme": url.protocol.slice(0, -1),
        "url.path": url.pathname,
        ...(redacted ? { "url.query": redacted.query } : {}),
      },
    }, parent);
    const answer = registry.context && parent
      ? registry.context.with(setSpan(parent, span), () => handler(request, info))
      : handler(request, info);
    const end = (response: Response) => {
      span.setAttribute("http.response.status_code", response.status);
      if (response.status >= 500) {
        span.setAttribute("error.type", String(response.status));
        span.setStatus({ code: STATUS_ERROR });
      }
      span.end();
    };
    if (answer.response) end(answer.response);
    else answer.then(end, () => span.end());
    return answer;
  };
}

/**
 * Names the request's server span after the route that matched (`GET /api/v1/booking/slots`)
 * and sets `http.route` to its pattern, as the HTTP semantic conventions ask: low cardinality,
 * whatever the path's parameters.
 *
 * @param method The request's method.
 * @param route The route's pattern, e.g. `/assets/:name`.
 */
export function nameServerSpan(method: string, route: string): void {
  const span = getActiveSpan(readRegistry());
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute("http.route", route);
}

/**
 * Wraps an MCP tool's handler so that each call has a span `tools/call <tool>` with the tool's
 * name (`gen_ai.tool.name`, `mcp.method.name`: the MCP semantic conventions'); a call whose
 * result is a tool error (`isError`) gets `error.type` `tool_error`. The arguments are not
 * recorded: they hold what people wrote. Returns `handler` itself when tracing is off.
 *
 * @param tool The tool's name, e.g. `book_call`.
 * @param handler The tool's handler.
 * @returns The handler, traced.
 */
export function traceToolCall<A extends unknown[], R>(
  tool: string,
  handler: (...args: A) => R | Promise<R>,
): (...args: A) => R | Promise<R> {
  if (!isTracingOn()) return handler;
  const attributes = {
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": tool,
  };
  return (...args) =>
    withSpan(`tools/call ${tool}`, attributes, async (span) => {
      const result = await handler(...args);
      if (isToolError(result)) span?.setAttribute("error.type", "tool_error");
      return result;
    });
}

/** Whether a tool's result is a tool error (`isError: true`, MCP's CallToolResult). */
function isToolError(result: unknown): boolean {
  return typeof result === "object" && result !== null && "isError" in result &&
    result.isError === true;
}

/**
 * The service's meter, from the meter provider a host registered with `@opentelemetry/api`.
 *
 * @returns The meter (scope `studio-website`), or `undefined` without a meter provider.
 */
export function getMeter(): Meter | undefined {
  return readRegistry()?.metrics?.getMeter(INSTRUMENTATION_SCOPE);
}

/**
 * Registers a runtime's own tracer provider and context manager with the API's global registry,
 * when the registry exists (the runtime's telemetry is on) and holds no tracer provider. Deno with
 * `OTEL_DENO=true OTEL_DENO_TRACING=false` makes no spans of its own (none for `Deno.serve`,
 * whose span records each request's query as it came, nor for `fetch`) and registers no tracer
 * provider, yet exports what `Deno.telemetry.tracerProvider` records: registered, the service's
 * own server span, with the query's values redacted, is each request's span
 * ({@linkcode traceRequests}). The runtime's tracing is read only when the registry exists:
 * Deno's `Deno.telemetry` loads its telemetry module on first access, some 1.4 ms of a cold
 * start with telemetry off.
 *
 * @param readTracing Reads the runtime's tracer provider and context manager (`Deno.telemetry`'s),
 * or `undefined` where it has none.
 * @returns Whether they were registered.
 */
export function adoptRuntimeTracing(
  readTracing: () => RuntimeTracing | undefined,
): boolean {
  const registry = readRegistry();
  if (!registry || registry.trace) return false;
  const tracing = readTracing();
  if (!tracing) return false;
  registry.trace = tracing.tracerProvider;
  registry.context ??= tracing.contextManager;
  return true;
}

/** A runtime's own tracing, as `Deno.telemetry` has it. */
export interface RuntimeTracing {
  /** The runtime's tracer provider. */
  tracerProvider: TracerProvider;
  /** The runtime's context manager. */
  contextManager: ContextManager;
}

/**
 * Whether the runtime itself traces each request with its query as it came: Deno with
 * `OTEL_DENO=true` and its own tracing on (`OTEL_DENO_TRACING` not `false`), whose `Deno.serve`
 * span records `url.full` and `url.query` before the service can redact them (Deno 2.9 keeps both
 * values), so the signed links' `sig` and the calendar feed's `key` reach the exporter.
 *
 * @param env The environment.
 * @returns `true` when the service should warn the operator (the README's Observability).
 */
export function isRuntimeTracingQueries(
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return "Deno" in globalThis && /^(true|1)$/i.test(env.OTEL_DENO ?? "") &&
    !/^(false|0)$/i.test(env.OTEL_DENO_TRACING ?? "");
}
