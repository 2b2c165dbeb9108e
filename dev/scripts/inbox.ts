/**
 * Operator tool: lists stored inquiries and bookings, newest first, with their state and the
 * delivery state of their e-mail, reading the same Deno KV file as the service (`STUDIO_KV_PATH`,
 * default `data/studio.kv`). On Node and Bun: `studio-website inbox`.
 *
 * Usage: `deno task inbox [--limit 50]`
 *
 * @module
 */
import { writeInboxReport } from "../../lib/inbox_report.ts";

const limitIndex = Deno.args.indexOf("--limit");
const limit = limitIndex >= 0 ? Number(Deno.args[limitIndex + 1]) : 50;
const path = Deno.env.get("STUDIO_KV_PATH")?.trim() || "data/studio.kv";
try {
  await Deno.stat(path);
} catch {
  console.error(`No KV file at "${path}" (set STUDIO_KV_PATH)`);
  Deno.exit(1);
}
const kv = await Deno.openKv(path);
await writeInboxReport(kv, { limit });
kv.close();
