// Entry with side effects: starts the service on Node. Started by `npx @studio/website` (cli.ts)
// or `node npm/node.js`.
/**
 * The Node entry (Node 20 and later): the composition of `app.ts` on the Node host (Deno KV
 * through `@deno/kv`, the handler on `@hono/node-server`).
 *
 * @module
 */
import "temporal-polyfill/global"; // First: Node 20 has no Temporal (installed only where missing).
import { runApp } from "./app.ts";
import { createNodeHost } from "./adapters/node_host.ts";

await runApp(createNodeHost());
