import { test } from "node:test";
import assert from "node:assert/strict";
import { createKnownJson, MIN_KNOWN_STRING_LENGTH } from "../../../lib/mcp/create_known_json.ts";

/** A long string whose JSON escapes quotes and line ends. */
const LONG_TEXT = JSON.stringify({ note: 'a quoted "line"\n'.repeat(30) });

/** A listing as a tool answers it: its slots, and its JSON as text. */
function buildListing() {
  const listing = {
    ok: true,
    timeZone: "Europe/Lisbon",
    slots: { "2026-12-02": [{ start: "2026-12-02T09:30:00+00:00" }] },
  };
  return { listing, text: JSON.stringify(listing) };
}

test("createKnownJson().stringify() gives JSON.stringify's text for a message holding known values, copies of them and other values", () => {
  const known = createKnownJson();
  const { listing, text } = buildListing();
  known.remember(listing, text);
  known.remember(listing.slots, JSON.stringify(listing.slots));
  known.remember(text, JSON.stringify(text));
  known.remember(LONG_TEXT, JSON.stringify(LONG_TEXT));
  const messages = [
    { result: { content: [{ type: "text", text }], structuredContent: listing }, id: 1 },
    // A copy of the listing's top level holds the known slots.
    { result: { structuredContent: { ...listing }, twice: [listing, listing] }, id: "a" },
    { result: { text: LONG_TEXT, other: `${LONG_TEXT} `, missing: undefined }, id: null },
    { result: { at: new Date(0), nothing: [undefined, () => 1] }, jsonrpc: "2.0" },
    listing,
    text,
  ];
  for (const message of messages) assert.equal(known.stringify(message), JSON.stringify(message));
});

test("createKnownJson().stringify() uses the JSON it was told for a remembered object or long string, and none for a short string", () => {
  const known = createKnownJson();
  const part = { slots: [1, 2] };
  const short = "x".repeat(MIN_KNOWN_STRING_LENGTH - 1);
  const long = "y".repeat(MIN_KNOWN_STRING_LENGTH);
  // JSON that differs from the values' own shows where the memo's text was used.
  known.remember(part, '{"slots":[3]}');
  known.remember(short, '"short"');
  known.remember(long, '"long"');
  assert.equal(
    known.stringify({ part, short, long }),
    `{"part":{"slots":[3]},"short":"${short}","long":"long"}`,
  );
  // Another object with the same members is not the remembered one.
  assert.equal(known.stringify({ part: { slots: [1, 2] } }), '{"part":{"slots":[1,2]}}');
});

test("createKnownJson() holds at most 16 long strings (the 17th finds none of the others kept), and forgets no object that lives", () => {
  const known = createKnownJson();
  const part = { kept: true };
  known.remember(part, '{"kept":"remembered"}');
  const strings = Array.from({ length: 17 }, (_, index) => `${index}`.padEnd(300, "z"));
  for (const value of strings) known.remember(value, `"${value.slice(0, 3)}"`);
  assert.equal(known.stringify(strings[0]), JSON.stringify(strings[0]));
  assert.equal(known.stringify(strings[16]), `"${strings[16].slice(0, 3)}"`);
  assert.equal(known.stringify([part]), '[{"kept":"remembered"}]');
});
