// Entry with side effects: starts the service on Bun. Run it with `bun adapters/bun/main.ts`, or the npm
// package's executable under Bun.
/**
 * The Bun entry: the composition of `compose/create_app.ts` on the Bun host (Deno KV through `@deno/kv` in
 * Bun's own value format: see `adapters/node/node_kv.ts`; the handler on `Bun.serve`).
 *
 * @module
 */
import { runApp } from "../../compose/create_app.ts";
import { createBunHost } from "./bun_host.ts";

await runApp(createBunHost());
