/**
 * A tracer provider that keeps its spans in memory, with a context manager on
 * `AsyncLocalStorage`, registered with `@opentelemetry/api` as an SDK registers its own: what a
 * host that starts an OpenTelemetry SDK gives the service. Internal to tests/lib/telemetry.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type ContextManager,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";

/** A span as recorded. */
export class RecordedSpan implements Span {
  name: string;
  readonly kind: SpanKind;
  readonly attributes: Array<[string, AttributeValue]> = [];
  readonly parent: RecordedSpan | undefined;
  readonly scope: string;
  status: SpanStatus = { code: 0 };
  ended = false;
  readonly #context: SpanContext;

  constructor(
    scope: string,
    name: string,
    options: SpanOptions,
    parent: RecordedSpan | undefined,
    spanId: string,
  ) {
    this.scope = scope;
    this.name = name;
    this.kind = options.kind ?? SpanKind.INTERNAL;
    this.parent = parent;
    this.#context = {
      traceId: parent?.spanContext().traceId ?? "0af7651916cd43dd8448eb211c80319c",
      spanId,
      traceFlags: 1,
    };
    this.setAttributes(options.attributes ?? {});
  }

  /** The last value given to an attribute (an SDK's `setAttribute` replaces it). */
  attribute(name: string): AttributeValue | undefined {
    return this.attributes.findLast(([key]) => key === name)?.[1];
  }

  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes.push([key, value]);
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== undefined) this.setAttribute(key, value);
    }
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    this.ended = true;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

/** What {@linkcode registerRecordingTracer} gives: the spans, and how to unregister. */
export interface RecordingTracer {
  /** Every span started, in order. */
  spans: RecordedSpan[];
  /** Unregisters the provider and the context manager. */
  disable(): void;
}

/**
 * Registers a recording tracer provider and an `AsyncLocalStorage` context manager globally.
 *
 * @returns The spans it records; call `disable()` when done.
 */
export function registerRecordingTracer(): RecordingTracer {
  const spans: RecordedSpan[] = [];
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? ROOT_CONTEXT,
    with: (activeContext, fn, thisArg, ...args) =>
      storage.run(activeContext, () => fn.apply(thisArg, args)),
    bind: (_context, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
  const getTracer = (scope: string): Tracer => {
    const startSpan = (name: string, options: SpanOptions = {}, parent?: Context) => {
      const parentSpan = trace.getSpan(parent ?? context.active());
      const recorded = parentSpan instanceof RecordedSpan ? parentSpan : undefined;
      const span = new RecordedSpan(
        scope,
        name,
        options,
        recorded,
        String(spans.length + 1).padStart(16, "0"),
      );
      spans.push(span);
      return span;
    };
    // One implementation of startActiveSpan's overloads: (name, [options, [context,]] fn).
    const startActiveSpan = (name: string, ...rest: unknown[]) => {
      const fn = rest.at(-1) as (span: Span) => unknown;
      const options = (rest.length > 1 ? rest[0] : {}) as SpanOptions;
      const parent = (rest.length > 2 ? rest[1] : context.active()) as Context;
      const span = startSpan(name, options, parent);
      return context.with(trace.setSpan(parent, span), () => fn(span));
    };
    return { startSpan, startActiveSpan } as Tracer;
  };
  const provider: TracerProvider = { getTracer };
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(provider);
  return {
    spans,
    disable() {
      trace.disable();
      context.disable();
    },
  };
}
