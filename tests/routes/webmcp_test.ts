import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import {
  BOOKING_FIELDS,
  buildParameterDescription,
  CONTACT_FIELDS,
  getOperation,
  getParameter,
} from "../../lib/contract/contract.ts";
import { escapeHtml } from "../../lib/mail/mail.ts";
import { createFixedClock } from "../../testing.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";
import {
  assertNoSampleWords,
  OTHER_CORPUS,
  OTHER_SCHEDULE,
  OTHER_TIME_ZONE,
} from "../_other_studio.ts";

const client = createTestClient(createSampleHandler({ logger: createRecordingLogger() }));

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
        `<fieldset class="slots" id="times" toolparamdescription="${
          escapeHtml(BOOKING_FIELDS.start.description)
        }">`,
      ),
      `${path}: the fieldset of the free times describes start`,
    );
  }
});

/** The booking widget of a page: the section and its configuration block. */
function readBookingWidget(html: string): { html: string; config: Record<string, unknown> } {
  const widget =
    /<section class="booking"[\s\S]*?<script type="application\/json" id="booking-config">([^<]*)<\/script>/
      .exec(html);
  assert.ok(widget, "the booking widget and its configuration");
  return { html: widget[0], config: JSON.parse(widget[1]) };
}

test("the booking forms give their script the schedule's zone and the slot tool's month in it: the sample's zone by default", async () => {
  for (const path of ["/marcar-conversa", "/en/book"]) {
    const { config } = readBookingWidget(await (await client.get(path)).text());
    assert.equal(config.timeZone, "Europe/Lisbon", path);
    assert.equal(
      (config.tool as Record<string, string>).monthDescription,
      buildParameterDescription(getParameter("listBookingSlots", "month"), "Europe/Lisbon"),
      path,
    );
  }
});

test("the booking forms of a studio in another zone list its times in that zone and never name the sample studio, its city or its zone", async () => {
  const other = createTestClient(createSampleHandler({
    logger: createRecordingLogger(),
    clock: createFixedClock("2026-11-21T10:00:00Z"),
    schedule: OTHER_SCHEDULE,
    content: OTHER_CORPUS,
  }));
  for (const path of ["/marcar-conversa?month=2026-12", "/en/book?month=2026-12"]) {
    const widget = readBookingWidget(await (await other.get(path)).text());
    assert.equal(widget.config.timeZone, OTHER_TIME_ZONE, path);
    assert.match(
      (widget.config.tool as Record<string, string>).monthDescription,
      /counted in America\/Sao_Paulo,/,
      path,
    );
    // The first free time of 2 December: 10:00 in São Paulo, as the schedule's hours say.
    assert.match(
      widget.html,
      /value="2026-12-02T10:00:00-03:00"[^>]*><span>10:00<\/span>/,
      path,
    );
    // The zone chooser lists every zone Intl knows, the sample's among them: the rest names none.
    assertNoSampleWords(widget.html.replace(/<select[\s\S]*?<\/select>/, ""), path);
  }
});

test("GET /assets/booking.js reads the page again in the browser's zone (Intl) unless one was asked for, and names no zone of its own", async () => {
  const response = await client.get("/assets/booking.js");
  assert.equal(response.status, 200);
  const script = await response.text();
  assert.match(script, /resolvedOptions\(\)\.timeZone/);
  assert.match(script, /if \(!config\.zoneAsked && zoneDiffers\(browserZone\)\)/);
  assert.match(script, /description: tool\.monthDescription/);
  assert.doesNotMatch(script, /Lisbo[an]|Europe\//);
});

test("the book_call form describes start by one fieldset around every free time, whatever the month holds (one free day, many, none)", async () => {
  // On 27 November at 10:00 Lisbon, November keeps one day with free times (the 30th).
  const handler = createSampleHandler({
    logger: createRecordingLogger(),
    clock: createFixedClock("2026-11-27T10:00:00Z"),
  });
  const other = createTestClient(handler);
  for (const month of ["2026-11", "2026-12", "2027-05"]) {
    for (const path of ["/en/book", "/marcar-conversa"]) {
      const form = readForm(await (await other.get(`${path}?month=${month}`)).text(), "book_call");
      const fieldsets = [...form.matchAll(/<fieldset[^>]*>/g)].map((match) => match[0]);
      assert.deepEqual(
        fieldsets,
        [
          `<fieldset class="slots" id="times" toolparamdescription="${
            escapeHtml(BOOKING_FIELDS.start.description)
          }">`,
        ],
        `${path}?month=${month}: no fieldset of a day between a radio and the description`,
      );
      if (month === "2026-11") {
        const days = new Set(
          [...form.matchAll(/value="(2026-11-\d\d)T/g)].map((match) => match[1]),
        );
        assert.deepEqual([...days], ["2026-11-30"], "one day with free times");
      }
    }
  }
});
