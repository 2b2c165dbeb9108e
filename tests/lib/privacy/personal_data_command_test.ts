import { after, test } from "node:test";
import assert from "node:assert/strict";
import { writeInboxReport } from "../../../lib/inbox_report.ts";
import { runPersonalDataCommand } from "../../../lib/privacy/personal_data_command.ts";
import type { ErasureRecord, PersonalDataExport } from "../../../lib/privacy/personal_data.ts";
import { createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import { createStudioApp, sendInquiry, type StudioApp } from "../../_studio_app.ts";

const apps: StudioApp[] = [];

after(async () => {
  for (const app of apps) await app.outbox.stop();
});

/** Runs a command and keeps what it wrote. */
async function run(app: StudioApp, args: string[]) {
  const output = { text: "", errors: [] as string[] };
  const code = await runPersonalDataCommand(app.services, args, {
    write: (text) => output.text += text,
    writeError: (line) => output.errors.push(line),
  });
  return { code, ...output };
}

test("runPersonalDataCommand() prints the export, then the erasure record, as JSON", async () => {
  const app = createStudioApp(createMemoryStore(), createMemoryMailer());
  apps.push(app);
  await sendInquiry(app, {
    Name: "Ana Sousa",
    Email: "ana@example.pt",
    Message: "Um site novo para a loja, por favor.",
  });
  const exported = await run(app, ["export", "Ana@Example.pt"]);
  assert.equal(exported.code, 0);
  assert.deepEqual(exported.errors, []);
  const document: PersonalDataExport = JSON.parse(exported.text);
  assert.equal(document.address, "ana@example.pt");
  assert.equal(document.inquiries.length, 1);

  const refused = await run(app, ["erase", "ana@example.pt"]);
  assert.equal(refused.code, 2);
  assert.match(refused.errors.join("\n"), /--actor/);

  const erased = await run(app, ["erase", "ana@example.pt", "--actor", "Rui Operador"]);
  assert.equal(erased.code, 0, erased.errors.join("\n"));
  const record: ErasureRecord = JSON.parse(erased.text);
  assert.equal(record.actor, "Rui Operador");
  assert.equal(record.counts.inquiries, 1);
  assert.ok(!erased.text.includes("ana@example.pt"), "the record holds no address");
  const after = JSON.parse((await run(app, ["export", "ana@example.pt"])).text);
  assert.deepEqual(after.inquiries, []);

  const lines: string[] = [];
  await writeInboxReport(app.store, { write: (line) => lines.push(line) });
  const at = lines.indexOf(`${record.erasedAt}  ${record.id}  by Rui Operador`);
  assert.ok(at > 0, "the inbox lists the erasure");
  assert.match(lines[at + 1], /^ {2}erased: {3}inquiries 1, bookings 0, cancelledBookings 0, /);
  assert.equal(lines.at(-1), "1 erasure");
  assert.ok(!lines.join("\n").includes("ana@example.pt"));
});

test("runPersonalDataCommand() answers 1 with the reason for a bad address, and 2 with the usage", async () => {
  const app = createStudioApp(createMemoryStore(), createMemoryMailer());
  apps.push(app);
  const bad = await run(app, ["export", "ana\u001b[2J@example"]);
  assert.equal(bad.code, 1);
  assert.equal(bad.text, "");
  assert.match(bad.errors[0], /is not an e-mail address: Give the address/);
  assert.ok(!bad.errors[0].includes("\u001b"), "control characters are shown escaped");
  const usage = await run(app, ["erase"]);
  assert.equal(usage.code, 2);
  assert.match(usage.errors[0], /export <email>/);
});
