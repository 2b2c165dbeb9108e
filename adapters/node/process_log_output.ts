// Adapter with side effects: writes to node:process's standard output and starts unref'd
// node:timers. Injected by the Node and Bun hosts; nothing in lib/ or routes/ imports it.
/**
 * The log's output on Node and Bun: the process's standard output, for `createLogWriter`.
 *
 * @module
 */
import process from "node:process";
import { setTimeout } from "node:timers";
import type { LogOutput } from "../../lib/ports.ts";

/**
 * Creates the log's output on Node or Bun: batches go to `process.stdout`, and the batch timer
 * is unref'd, so it does not keep the process alive.
 *
 * @returns The output.
 */
export function createProcessLogOutput(): LogOutput {
  // A reader that goes away (EPIPE) must not crash the service: an `error` event without a
  // listener would throw. The write's callback still settles, and the batch is lost, as it is
  // with console.log.
  process.stdout.on("error", () => {});
  return {
    write: (text) => new Promise((resolve) => process.stdout.write(text, () => resolve())),
    schedule(callback, delayMilliseconds) {
      setTimeout(callback, delayMilliseconds).unref();
    },
  };
}
