import { test } from "node:test";
import assert from "node:assert/strict";
import { createHandler } from "../../mod.ts";
import { BOOKING_FIELDS, CONTACT_FIELDS, getOperation } from "../../lib/contract/contract.ts";
import { escapeHtml } from "../../lib/mail/mail.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";

const client = createTestClient(createHandler({ logger: createRecordingLogger() }));

function readForm(html: string, toolName: string): string {
  const form = new RegExp(`<form [^>]*toolname="${toolName}"[^>]*>[\\s\\S]*?</form>`).exec(html);
  assert.ok(form, `a form named ${toolName}`);
  return form[0];
}

test("the contact forms are the send_inquiry tool of WebMCP, submitted by the agent; each control describes its field as the contract does", async () => {
  for (const path of ["/contacto", "/en/contact"]) {
    const form = readForm(await (await client.get(path)).text(), "send_inquiry");
    const opening = form.slice(0, form.indexOf(">") + 1);
    assert.ok(
      opening.includes(
        `tooldescription="${escapeHtml(getOperation("createContactInquiry").description)}"`,
      ),
      path,
    );
    assert.match(opening, / toolautosubmit[ >]/, path);
    for (const field of ["Name", "Email", "Category", "Message"] as const) {
      assert.ok(
        form.includes(`name="${field}"`) &&
          form.includes(`toolparamdescription="${escapeHtml(CONTACT_FIELDS[field].description)}"`),
        `${path}: ${field}`,
      );
    }
  }
});

test("the booking forms are the book_call tool of WebMCP, which a person submits (no toolautosubmit)", async () => {
  for (const path of ["/marcar-conversa", "/en/book"]) {
    const form = readForm(await (await client.get(path)).text(), "book_call");
    const opening = form.slice(0, form.indexOf(">") + 1);
    assert.ok(
      opening.includes(
        `tooldescription="${escapeHtml(getOperation("createBooking").description)}"`,
      ),
    );
    assert.doesNotMatch(opening, /toolautosubmit/, path);
    for (const field of ["start", "name", "email", "company", "topic"] as const) {
      assert.ok(
        form.includes(`toolparamdescription="${escapeHtml(BOOKING_FIELDS[field].description)}"`),
        `${path}: ${field}`,
      );
    }
    // Chromium describes a group of radios by the fieldset around the whole group, not by each.
    assert.ok(
      form.includes(
        `<fieldset class="slots" toolparamdescription="${
          escapeHtml(BOOKING_FIELDS.start.description)
        }">`,
      ),
      `${path}: the fieldset of the free times describes start`,
    );
  }
});
