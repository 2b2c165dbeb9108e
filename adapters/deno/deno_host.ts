// Adapter with side effects: serves on Deno.serve, hears Deno's signals and exits the process.
// Used by main.ts and adapters/deno/serve.ts.
/**
 * The Deno host of the runtime-neutral composition.
 *
 * @module
 */
import type { AppHost } from "../../lib/host.ts";
import { isDenoDeploy, openDenoKv } from "./deno_kv.ts";
import { createDenoLogOutput } from "./deno_log_output.ts";
import { adoptRuntimeTracing, type RuntimeTracing } from "../../lib/telemetry/telemetry.ts";

/** Options of {@linkcode createDenoHost}. */
export interface DenoHostOptions {
  /**
   * Whether other processes share the standard output, as the workers of
   * `deno serve --parallel` do: the request log then writes whole lines at most 4096 bytes at a
   * time, so that two workers' lines never interleave. @default {false}
   */
  sharedOutput?: boolean;
}

/**
 * The Deno host of `runApp`: the process environment, Deno KV as the store (`STUDIO_KV_PATH`: a
 * file, a KV Connect URL, or on Deno Deploy the platform's KV when unset), the request log on the
 * standard output (on Deno Deploy, whose log keeps one entry per console call, a line at a time),
 * the handler on `Deno.serve`, SIGINT/SIGTERM where the platform has signals, and, with
 * `OTEL_DENO=true OTEL_DENO_TRACING=false`, Deno's tracer provider for the service's own spans.
 *
 * @param options Whether other processes share the standard output.
 * @returns The host.
 */
export function createDenoHost(options: DenoHostOptions = {}): AppHost {
  const onDenoDeploy = isDenoDeploy();
  // With OTEL_DENO=true and Deno's own tracing off, the service's spans go to Deno's exporter
  // (lib/telemetry/telemetry.ts): its server spans, redacted, stand for Deno's.
  adoptRuntimeTracing(() => (Deno as unknown as { telemetry?: RuntimeTracing }).telemetry);
  return {
    onDenoDeploy,
    openStore: openDenoKv,
    logOutput: onDenoDeploy ? undefined : createDenoLogOutput({ shared: options.sharedOutput }),
    env: Deno.env.toObject(),
    serve(handler, { port, hostname }) {
      const server = Deno.serve({ port, hostname, onListen() {} }, (request, info) => {
        const answer = handler(request, info);
        // A response that is ready goes out without a turn of the microtask queue.
        return answer.response ?? answer;
      });
      const address = server.addr as Deno.NetAddr;
      return Promise.resolve({ ...address, shutdown: () => server.shutdown() });
    },
    onSignal(listener) {
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        try {
          Deno.addSignalListener(signal, listener);
        } catch { /* no signals here (Deno Deploy) */ }
      }
    },
    exit: (code) => Deno.exit(code),
  };
}
