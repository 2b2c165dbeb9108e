/**
 * Invisible formatting characters never reach what a person reads (issue L5 of the re-attack): a
 * bidirectional override (U+202E) in a name would display "Ana <U+202E>moc.live" as
 * "Ana evil.com"; the fields remove them before a value is checked, stored, mailed or shown on the
 * desk, and mail headers drop them too.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildStruct, validateFields } from "../../../lib/contract/fields.ts";
import { BOOKING_FIELDS, CONTACT_FIELDS } from "../../../lib/contract/contract.ts";
import { toHeaderText } from "../../../lib/mail/mail.ts";

/** Every character the fields must remove: bidi embeddings, overrides, isolates, zero-widths, BOM. */
const INVISIBLE = [
  ..."\u202a\u202b\u202c\u202d\u202e",
  ..."\u2066\u2067\u2068\u2069",
  ..."\u200b\u200c\u200d\u200e\u200f",
  "\ufeff",
];

test("a contact inquiry's fields lose every bidi and invisible formatting character", () => {
  const struct = buildStruct(CONTACT_FIELDS);
  for (const character of INVISIBLE) {
    const result = validateFields(CONTACT_FIELDS, struct, {
      Name: `Ana ${character}Sousa`,
      Email: "ana@example.pt",
      Message: `Olá${character}, queremos um site novo para a loja.`,
    });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.value.Name, "Ana Sousa", `U+${character.codePointAt(0)!.toString(16)}`);
    assert.equal(result.value.Message, "Olá, queremos um site novo para a loja.");
  }
});

test("a booking's topic and company lose them; a required field of nothing but them is missing", () => {
  const struct = buildStruct(BOOKING_FIELDS);
  const result = validateFields(BOOKING_FIELDS, struct, {
    start: "2026-12-01T09:30:00+00:00",
    name: "\u202eanA",
    email: "ana@example.pt",
    company: "Cerâmica\u2066 Lda\u2069",
    topic: "Um novo site\u200b para a marca",
    locale: "pt",
  });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.value.name, "anA");
  assert.equal(result.value.company, "Cerâmica Lda");
  assert.equal(result.value.topic, "Um novo site para a marca");

  const empty = validateFields(BOOKING_FIELDS, struct, {
    start: "2026-12-01T09:30:00+00:00",
    name: "\u202e\u200b\ufeff",
    email: "ana@example.pt",
    topic: "Um novo site para a marca",
    locale: "pt",
  });
  assert.equal(empty.ok, false);
  assert.deepEqual(!empty.ok && empty.problems.map((problem) => problem.field), ["name"]);
});

test("a mail header drops them", () => {
  assert.equal(
    toHeaderText("Nova mensagem de Ana \u202eSousa\u2069\ufeff"),
    "Nova mensagem de Ana Sousa",
  );
});
