// Adapter with side effects: writes to Deno.stdout and starts timers Deno.unrefTimer releases.
// Injected by main.ts and serve.ts; nothing in lib/ or routes/ imports it.
/**
 * The log's output on Deno: the process's standard output, for `createLogWriter`.
 *
 * @module
 */
import type { LogOutput } from "../../lib/ports.ts";

/** The most bytes a pipe takes whole from one write, never mixed with another's (PIPE_BUF). */
const PIPE_BUF_BYTES = 4096;

/** Options of {@linkcode createDenoLogOutput}. */
export interface DenoLogOutputOptions {
  /**
   * Whether other writers share the standard output, as the workers of
   * `deno serve --parallel` do: a batch then goes in writes of at most 4096 bytes of whole
   * lines, which a pipe takes whole, so that two workers' lines never interleave. A write per
   * batch costs less. @default {false}
   */
  shared?: boolean;
}

/** Where a write of `bytes` from `start` ends: after the last whole line within `maxBytes`. */
function findWriteEnd(bytes: Uint8Array, start: number, maxBytes: number): number {
  if (bytes.length - start <= maxBytes) return bytes.length;
  const lastBreak = bytes.lastIndexOf(10, start + maxBytes - 1);
  // A line longer than a write goes whole.
  return lastBreak >= start ? lastBreak + 1 : bytes.indexOf(10, start) + 1 || bytes.length;
}

/**
 * Creates the log's output on Deno: batches go to `Deno.stdout` (an asynchronous write, so a
 * slow reader of the pipe delays the log, not the requests), and the batch timer does not keep
 * the process alive.
 *
 * @param options Whether other writers share the output.
 * @returns The output.
 */
export function createDenoLogOutput(options: DenoLogOutputOptions = {}): LogOutput {
  const maxWriteBytes = options.shared ? PIPE_BUF_BYTES : Infinity;
  const encoder = new TextEncoder();
  let timersLoaded = false;
  return {
    async write(text) {
      const bytes = encoder.encode(text);
      for (let start = 0; start < bytes.length;) {
        const end = findWriteEnd(bytes, start, maxWriteBytes);
        while (start < end) start += await Deno.stdout.write(bytes.subarray(start, end));
      }
    },
    schedule(callback, delayMilliseconds) {
      if (timersLoaded) {
        Deno.unrefTimer(setTimeout(callback, delayMilliseconds));
        return;
      }
      // Deno's first setTimeout loads Node's timers module (several milliseconds), which would
      // land on the first request's path. The first batch waits on AbortSignal.timeout instead,
      // which starts at no cost but cannot be released: it holds the process for at most
      // `delayMilliseconds`, once. Its callback, between requests, loads the timers for the rest.
      AbortSignal.timeout(delayMilliseconds).addEventListener("abort", () => {
        callback();
        Deno.unrefTimer(setTimeout(() => {}, 0));
        timersLoaded = true;
      });
    },
  };
}
