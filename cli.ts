#!/usr/bin/env node
// Entry with side effects: the npm package's executable. Reads node:process arguments and starts
// the service on the Bun or Node host, whichever runtime runs it.
/**
 * `studio-website` (`npx @studio/website`, or `bunx @studio/website` under Bun): starts the service
 * with the same environment variables as `deno task start`. `studio-website inbox [--limit 50]`
 * lists the stored inquiries and bookings of `STUDIO_KV_PATH` instead.
 *
 * @module
 */
import "temporal-polyfill/global"; // First: Node 20 has no Temporal (installed only where missing).
import process from "node:process";

const [command, ...rest] = process.argv.slice(2);
if (command === "inbox") {
  const { existsSync } = await import("node:fs");
  const { openNodeKv } = await import("./adapters/node_kv.ts");
  const { writeInboxReport } = await import("./lib/inbox_report.ts");
  const path = process.env.STUDIO_KV_PATH?.trim() || "data/studio.kv";
  if (!existsSync(path)) {
    console.error(`No KV file at "${path}" (set STUDIO_KV_PATH)`);
    process.exit(1);
  }
  const limitIndex = rest.indexOf("--limit");
  const store = await openNodeKv(path);
  await writeInboxReport(store, { limit: limitIndex >= 0 ? Number(rest[limitIndex + 1]) : 50 });
  store.close();
} else if (command === undefined) {
  const { runApp } = await import("./app.ts");
  const host = "Bun" in globalThis
    ? (await import("./adapters/bun_host.ts")).createBunHost()
    : (await import("./adapters/node_host.ts")).createNodeHost();
  await runApp(host);
} else {
  console.error(`studio-website: unknown command "${command}"; use no argument, or "inbox"`);
  process.exit(2);
}
