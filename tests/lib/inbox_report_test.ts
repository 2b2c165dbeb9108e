import { test } from "node:test";
import assert from "node:assert/strict";
import { writeInboxReport } from "../../lib/inbox_report.ts";
import { toPrintable } from "../../lib/privacy/to_printable.ts";
import { INQUIRY_PREFIX } from "../../lib/contact/inquiries.ts";
import { createMemoryStore } from "../../testing.ts";

test("toPrintable() escapes ESC, NUL, CR, LF, DEL and C1 characters", () => {
  assert.equal(
    toPrintable("a\u001b[2Jb\u0000c\r\nd\u007fe\u009bf"),
    "a\\u001b[2Jb\\u0000c\\u000d\\u000ad\\u007fe\\u009bf",
  );
  assert.equal(toPrintable("Olá, estúdio — 😀"), "Olá, estúdio — 😀");
});

test("writeInboxReport() prints a visitor's control characters escaped, never raw", async () => {
  const store = createMemoryStore();
  try {
    const id = "01JAAAAAAAAAAAAAAAAAAAAAAA";
    await store.set([...INQUIRY_PREFIX, id], {
      id,
      receivedAt: "2026-11-21T10:00:00Z",
      fields: {
        Name: "Ana\u001b[2J\r\n  from:     Forged <ceo@studio.example>",
        Email: "ana@example.pt",
        Message: "Olá\u0000\u001b]0;title\u0007",
      },
      clientAddress: "203.0.113.7",
      mailIds: [],
    });
    const lines: string[] = [];
    await writeInboxReport(store, { limit: 10, write: (line) => lines.push(line) });
    // deno-lint-ignore no-control-regex -- matching control characters is the point
    for (const line of lines) assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f]/, line);
    const from = lines.filter((line) => line.includes("from:"));
    assert.equal(from.length, 1, "the forged line stays inside the real one");
    assert.match(from[0], /Ana\\u001b\[2J\\u000d\\u000a {2}from: {5}Forged/);
  } finally {
    store.close();
  }
});
