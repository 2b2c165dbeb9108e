// Entry with side effects: starts the service on Node. Started by `npx @studio/website`
// (adapters/npm/cli.ts) or `node npm/adapters/node/main.js`.
/**
 * The Node entry (Node 20 and later): the composition of `compose/create_app.ts` on the Node host (Deno KV
 * through `@deno/kv`, the handler on `@hono/node-server`).
 *
 * @module
 */
import "temporal-polyfill/global"; // First: Node 20 has no Temporal (installed only where missing).
import { runApp } from "../../compose/create_app.ts";
import { createNodeHost } from "./node_host.ts";

await runApp(createNodeHost());
