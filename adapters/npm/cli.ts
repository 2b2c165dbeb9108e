#!/usr/bin/env node
// Entry with side effects: the npm package's executable. Reads node:process arguments and starts
// the service on the Bun or Node host, whichever runtime runs it.
/**
 * `studio-website` (`npx @studio/website`, or `bunx @studio/website` under Bun): starts the service
 * with the same environment variables as `deno task start`. `studio-website inbox [--limit 50]`
 * lists the stored inquiries and bookings of `STUDIO_KV_PATH` instead, and `studio-website inbox
 * export|erase <email>` exports or erases what is stored about an address; `--help` and
 * `--version` say what they say.
 *
 * @module
 */
import "temporal-polyfill/global"; // First: Node 20 has no Temporal (installed only where missing).
import process from "node:process";
import { SERVICE_NAME } from "../../lib/contract/contract.ts";

const USAGE = `Usage: ${SERVICE_NAME} [command]

Commands:
  (none)               start the service (settings from environment variables: PORT, HOST,
                       STUDIO_BASE_URL, STUDIO_KV_PATH, STUDIO_SMTP_URL, …; see the README)
  inbox [--limit N]    list the newest N (default 50) inquiries and bookings of STUDIO_KV_PATH
  inbox export <email>
                       print, as JSON, everything stored about an e-mail address
  inbox erase <email> --actor <name> [--discard-undelivered]
                       cancel the address's upcoming bookings (their CANCEL invites are sent),
                       erase everything stored about it, and print the erasure record as JSON;
                       --discard-undelivered erases even if those invites cannot be delivered
  --help, -h           show this help
  --version, -v        show the version`;

/** The package's version, from the package.json at the root of the package (two folders up). */
async function readVersion(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const text = await readFile(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}

const [command, ...rest] = process.argv.slice(2);
if (command === "--help" || command === "-h" || command === "help") {
  console.log(USAGE);
} else if (command === "--version" || command === "-v") {
  console.log(await readVersion());
} else if (command === "inbox") {
  const { existsSync } = await import("node:fs");
  const { openNodeKv } = await import("../node/node_kv.ts");
  const { writeInboxReport } = await import("../../lib/inbox_report.ts");
  const { SERVICE_DEFAULTS } = await import("../../lib/config.ts");
  const path = process.env.STUDIO_KV_PATH?.trim() || SERVICE_DEFAULTS.kvPath;
  if (!existsSync(path)) {
    console.error(`No KV file at "${path}" (set STUDIO_KV_PATH)`);
    process.exit(1);
  }
  const store = await openNodeKv(path);
  const privacy = await import("../../lib/privacy/personal_data_command.ts");
  if (privacy.isPersonalDataCommand(rest[0])) {
    const { createOperatorServices } = await import("../../compose/create_operator_services.ts");
    const operator = createOperatorServices(process.env, store);
    try {
      process.exitCode = await privacy.runPersonalDataCommand(operator.services, rest, {
        write: (text) => process.stdout.write(text),
        writeError: (line) => console.error(line),
      });
    } finally {
      await operator.close();
      store.close();
    }
  } else {
    const limitIndex = rest.indexOf("--limit");
    try {
      await writeInboxReport(store, {
        limit: limitIndex >= 0 ? Number(rest[limitIndex + 1]) : 50,
      });
    } catch (error) {
      // A value this runtime cannot read (a file another runtime wrote) is the usual cause: its
      // message says which; a stack trace would not help an operator.
      console.error(`${SERVICE_NAME}: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    } finally {
      store.close();
    }
  }
} else if (command === undefined) {
  const { runApp } = await import("../../compose/create_app.ts");
  const host = "Bun" in globalThis
    ? (await import("../bun/bun_host.ts")).createBunHost()
    : (await import("../node/node_host.ts")).createNodeHost();
  await runApp(host);
} else {
  console.error(`${SERVICE_NAME}: unknown command "${command}"\n\n${USAGE}`);
  process.exit(2);
}
