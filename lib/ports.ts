/**
 * The ports for time and logs: the two side effects every part of the service may need, as
 * interfaces that import nothing, so that a domain module can take exactly the ports it uses
 * (docs/style.md, "Ports"). Implementations are injected through `createHandler`'s options.
 *
 * @module
 */

/** The source of the current time. Tests pass a fake one. */
export interface Clock {
  /** The current instant. */
  now(): Temporal.Instant;
}

/** Structured log output. Fields must be JSON-serialisable; never log secrets or message bodies. */
export interface Logger {
  /** Something worth knowing happened. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something degraded but the service goes on. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Something failed. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * A runtime's standard output as the log writes to it: text in batches, and a timer that lets
 * the process end. Hosts implement it (Deno: `Deno.stdout`; Node and Bun: `process.stdout`), so
 * that `lib/` touches no runtime.
 */
export interface LogOutput {
  /**
   * Writes `text` (whole lines, each ending in `\n`) in full.
   *
   * @returns Once the runtime has taken all of it; rejects when the output is gone.
   */
  write(text: string): Promise<void>;
  /**
   * Calls `callback` once, after `delayMilliseconds`, without keeping the process alive for it.
   */
  schedule(callback: () => void, delayMilliseconds: number): void;
}
