/**
 * Operator tool over the same Deno KV file as the service (`STUDIO_KV_PATH`, default
 * `data/studio.kv`): lists stored inquiries and bookings, newest first, with their state and the
 * delivery state of their e-mail; or exports or erases what is stored about one e-mail address
 * (`lib/privacy/`), with the service's settings from the same environment variables (an erasure
 * sends its cancellations through `STUDIO_SMTP_URL`, or leaves them to a running service's
 * outbox). On Node and Bun: `studio-website inbox …`.
 *
 * Usage: `deno task inbox [--limit 50]`, `deno task inbox export <email>`,
 * `deno task inbox erase <email> --actor <name> [--discard-undelivered]`
 *
 * @module
 */
import { writeInboxReport } from "../lib/inbox_report.ts";
import {
  isPersonalDataCommand,
  runPersonalDataCommand,
} from "../lib/privacy/personal_data_command.ts";

const path = Deno.env.get("STUDIO_KV_PATH")?.trim() || "data/studio.kv";
try {
  await Deno.stat(path);
} catch {
  console.error(`No KV file at "${path}" (set STUDIO_KV_PATH)`);
  Deno.exit(1);
}
const kv = await Deno.openKv(path);
if (isPersonalDataCommand(Deno.args[0])) {
  const { createOperatorServices } = await import("../compose/create_operator_services.ts");
  const operator = createOperatorServices(Deno.env.toObject(), kv);
  let code = 1;
  try {
    code = await runPersonalDataCommand(operator.services, Deno.args, {
      write: (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
      writeError: (line) => console.error(line),
    });
  } finally {
    await operator.close();
    kv.close();
  }
  Deno.exit(code);
}
const limitIndex = Deno.args.indexOf("--limit");
const limit = limitIndex >= 0 ? Number(Deno.args[limitIndex + 1]) : 50;
await writeInboxReport(kv, { limit });
kv.close();
