// Entry with side effects: starts the service on Bun. Run it with `bun bun.ts`, or the npm
// package's executable under Bun.
/**
 * The Bun entry: the composition of `app.ts` on the Bun host (Deno KV through `@deno/kv` in
 * Bun's own value format: see `adapters/node_kv.ts`; the handler on `Bun.serve`).
 *
 * @module
 */
import { runApp } from "./app.ts";
import { createBunHost } from "./adapters/bun_host.ts";

await runApp(createBunHost());
