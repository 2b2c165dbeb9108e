import { test } from "node:test";
import assert from "node:assert/strict";
import { type Struct, validate } from "superstruct";
import {
  buildJsonSchema,
  countCodePoints,
  type FieldProblem,
  type FieldSet,
  type FieldValues,
  isDateTime,
  isEmailAddress,
  type TextField,
  validateFields,
} from "../../../lib/contract/fields.ts";
import { BOOKING_FIELDS, CONTACT_FIELDS } from "../../../lib/contract/contract.ts";
import { BookingRequest, ContactInquiry } from "../../../lib/contract/request_structs.ts";

/** The outcome of validateFields(), widened so one helper serves both field sets. */
type Outcome = { ok: true; value: object } | { ok: false; problems: FieldProblem[] };

/** The bounds the spec's Resources tables give (spec, ContactInquiry and BookingRequest). */
interface Bounds {
  required: boolean;
  minLength?: number;
  maxLength: number;
}

interface FieldSetCase {
  schema: string;
  fields: FieldSet;
  validate: (input: Record<string, unknown>) => Outcome;
  valid: Record<string, string>;
  bounds: Record<string, Bounds>;
}

const CONTACT: FieldSetCase = {
  schema: "ContactInquiry",
  fields: CONTACT_FIELDS,
  validate: (input) => validateFields(CONTACT_FIELDS, ContactInquiry, input),
  valid: { Name: "Ana Sousa", Email: "ana@example.pt", Message: "We need a new website." },
  bounds: {
    Name: { required: true, minLength: 1, maxLength: 200 },
    Email: { required: true, maxLength: 320 },
    Message: { required: true, minLength: 1, maxLength: 5000 },
    Category: { required: false, maxLength: 100 },
    utm_source: { required: false, maxLength: 200 },
    utm_medium: { required: false, maxLength: 200 },
    utm_campaign: { required: false, maxLength: 200 },
    utm_content: { required: false, maxLength: 200 },
    utm_term: { required: false, maxLength: 200 },
    gclid: { required: false, maxLength: 200 },
  },
};

const BOOKING: FieldSetCase = {
  schema: "BookingRequest",
  fields: BOOKING_FIELDS,
  validate: (input) => validateFields(BOOKING_FIELDS, BookingRequest, input),
  valid: {
    start: "2026-12-01T09:30:00Z",
    name: "Ana Sousa",
    email: "ana@example.pt",
    topic: "A new website for our studio",
    locale: "en",
  },
  bounds: {
    start: { required: true, maxLength: 64 },
    name: { required: true, minLength: 2, maxLength: 120 },
    email: { required: true, maxLength: 254 },
    company: { required: false, maxLength: 160 },
    topic: { required: true, minLength: 10, maxLength: 2000 },
    locale: { required: true, maxLength: 2 },
    website: { required: false, maxLength: 0 },
  },
};

function valueOf(outcome: Outcome): Record<string, unknown> {
  if (!outcome.ok) assert.fail(`expected a valid body, got ${JSON.stringify(outcome.problems)}`);
  return { ...outcome.value };
}

function problemsOf(outcome: Outcome): FieldProblem[] {
  if (outcome.ok) assert.fail(`expected problems, got ${JSON.stringify(outcome.value)}`);
  return outcome.problems;
}

/** A value of `length` code points that satisfies the field's format and enum where it can. */
function textOfLength(field: TextField, length: number): string {
  if (field.format === "email") {
    const domain = "@example.pt";
    return "a".repeat(length - domain.length) + domain;
  }
  if (field.enum) {
    const exact = field.enum.find((item) => item.length === length);
    return exact ?? field.enum[0] + "x".repeat(Math.max(0, length - field.enum[0].length));
  }
  return "x".repeat(length);
}

for (const { schema, fields, bounds } of [CONTACT, BOOKING]) {
  test(`${schema} declares the spec's fields with their required flags and length bounds`, () => {
    assert.deepEqual(Object.keys(fields), Object.keys(bounds));
    for (const [name, expected] of Object.entries(bounds)) {
      const field = fields[name];
      assert.equal(field.required, expected.required, `${name}.required`);
      assert.equal(field.minLength, expected.minLength, `${name}.minLength`);
      assert.equal(field.maxLength, expected.maxLength, `${name}.maxLength`);
    }
  });
}

for (const { schema, fields, validate, valid, bounds } of [CONTACT, BOOKING]) {
  for (const [name, { maxLength }] of Object.entries(bounds)) {
    const field = fields[name];
    if (field.format === "date-time") continue; // no valid date-time is 64 long: tested below
    test(
      `validateFields() accepts ${schema} ${name} at ${maxLength} code points and rejects ${
        maxLength + 1
      }`,
      () => {
        const atMax = textOfLength(field, maxLength);
        assert.equal(countCodePoints(atMax), maxLength);
        const accepted = valueOf(validate({ ...valid, [name]: atMax }));
        if (maxLength > 0) assert.equal(accepted[name], atMax);
        const problems = problemsOf(
          validate({ ...valid, [name]: textOfLength(field, maxLength + 1) }),
        );
        assert.equal(problems.length, 1);
        assert.equal(problems[0].field, name);
        assert.ok(problems[0].hint.includes(`"${name}"`), problems[0].hint);
        if (field.enum) {
          // An enum field reports the allowed values, which say more than a length.
          assert.equal(problems[0].problem, "enum");
        } else {
          assert.equal(problems[0].problem, "length");
          assert.ok(problems[0].hint.includes(`(it has ${maxLength + 1})`), problems[0].hint);
        }
      },
    );
  }
  for (const [name, { minLength }] of Object.entries(bounds)) {
    if (minLength === undefined) continue;
    test(
      `validateFields() accepts ${schema} ${name} at ${minLength} code points and rejects ${
        minLength - 1
      }`,
      () => {
        const atMin = "y".repeat(minLength);
        assert.equal(valueOf(validate({ ...valid, [name]: atMin }))[name], atMin);
        const problems = problemsOf(validate({ ...valid, [name]: "y".repeat(minLength - 1) }));
        assert.equal(problems.length, 1);
        assert.equal(problems[0].field, name);
        // Below a minimum of 1 the field is empty, which is reported as missing.
        assert.equal(problems[0].problem, minLength === 1 ? "missing" : "length");
        assert.ok(problems[0].hint.includes(`"${name}"`), problems[0].hint);
      },
    );
  }
}

test("validateFields() names the bounds in a length hint", () => {
  assert.deepEqual(problemsOf(CONTACT.validate({ ...CONTACT.valid, Name: "n".repeat(201) })), [{
    field: "Name",
    problem: "length",
    hint: `Shorten or lengthen "Name": use 1 to 200 characters (it has 201)`,
  }]);
  assert.deepEqual(
    problemsOf(CONTACT.validate({ ...CONTACT.valid, Category: "c".repeat(101) })),
    [{
      field: "Category",
      problem: "length",
      hint: `Shorten or lengthen "Category": use at most 100 characters (it has 101)`,
    }],
  );
  assert.deepEqual(problemsOf(BOOKING.validate({ ...BOOKING.valid, website: "http://spam" })), [{
    field: "website",
    problem: "length",
    hint: `Shorten or lengthen "website": leave it empty (it has 11)`,
  }]);
  assert.deepEqual(problemsOf(BOOKING.validate({ ...BOOKING.valid, topic: "Too short" })), [{
    field: "topic",
    problem: "length",
    hint: `Shorten or lengthen "topic": use 10 to 2000 characters (it has 9)`,
  }]);
});

test("validateFields() checks BookingRequest start against maxLength 64 before its format", () => {
  const problems = problemsOf(BOOKING.validate({ ...BOOKING.valid, start: "x".repeat(65) }));
  assert.deepEqual(problems.map(({ field, problem }) => ({ field, problem })), [
    { field: "start", problem: "length" },
  ]);
  const atMax = problemsOf(BOOKING.validate({ ...BOOKING.valid, start: "x".repeat(64) }));
  assert.deepEqual(atMax.map(({ field, problem }) => ({ field, problem })), [
    { field: "start", problem: "format" },
  ]);
});

test("validateFields() counts lengths in code points, an emoji as 1", () => {
  const emoji = "\u{1F600}";
  assert.equal(emoji.length, 2);
  assert.equal(countCodePoints(emoji.repeat(3)), 3);
  const name = emoji.repeat(200);
  assert.equal(valueOf(CONTACT.validate({ ...CONTACT.valid, Name: name })).Name, name);
  const tooLong = problemsOf(CONTACT.validate({ ...CONTACT.valid, Name: emoji.repeat(201) }));
  assert.equal(tooLong[0].problem, "length");
  assert.ok(tooLong[0].hint.endsWith("(it has 201)"), tooLong[0].hint);
  // One emoji is two UTF-16 units but one code point: below the booking name's minimum of 2.
  const tooShort = problemsOf(BOOKING.validate({ ...BOOKING.valid, name: emoji }));
  assert.deepEqual(tooShort.map(({ field, problem }) => ({ field, problem })), [
    { field: "name", problem: "length" },
  ]);
  assert.equal(
    valueOf(BOOKING.validate({ ...BOOKING.valid, name: emoji + emoji })).name,
    emoji + emoji,
  );
});

test("validateFields() trims strings before checking and returning them", () => {
  const value = valueOf(CONTACT.validate({
    Name: "  Ana Sousa \n",
    Email: "\tana@example.pt  ",
    Message: ` ${"m".repeat(5000)} `,
  }));
  assert.equal(value.Name, "Ana Sousa");
  assert.equal(value.Email, "ana@example.pt");
  assert.equal(value.Message, "m".repeat(5000));
  assert.equal(valueOf(BOOKING.validate({ ...BOOKING.valid, locale: " pt " })).locale, "pt");
  const blank = problemsOf(CONTACT.validate({ ...CONTACT.valid, Message: " \n\t " }));
  assert.deepEqual(blank.map(({ field, problem }) => ({ field, problem })), [
    { field: "Message", problem: "missing" },
  ]);
});

test("validateFields() ignores unknown fields and leaves them out of the result", () => {
  const value = valueOf(CONTACT.validate({
    ...CONTACT.valid,
    Phone: "+351 210 000 000",
    name: "lower-case twin",
    Category: "website",
    extra: { nested: true },
  }));
  assert.deepEqual(value, { ...CONTACT.valid, Category: "website" });
});

test("validateFields() drops optional fields that are empty after trimming", () => {
  const value = valueOf(CONTACT.validate({
    ...CONTACT.valid,
    Category: "",
    utm_source: "   ",
    gclid: "abc123",
  }));
  assert.deepEqual(value, { ...CONTACT.valid, gclid: "abc123" });
  assert.equal("Category" in value, false);
  assert.equal("utm_source" in value, false);
  const booking = valueOf(BOOKING.validate({ ...BOOKING.valid, website: "", company: " " }));
  assert.deepEqual(booking, BOOKING.valid);
});

test("validateFields() reports each missing required field as missing", () => {
  assert.deepEqual(problemsOf(CONTACT.validate({})), [
    { field: "Name", problem: "missing", hint: `Add "Name": it is required` },
    { field: "Email", problem: "missing", hint: `Add "Email": it is required` },
    { field: "Message", problem: "missing", hint: `Add "Message": it is required` },
  ]);
  assert.deepEqual(
    problemsOf(BOOKING.validate({})).map(({ field, problem }) => ({ field, problem })),
    ["start", "name", "email", "topic", "locale"].map((field) => ({ field, problem: "missing" })),
  );
  // A value was sent, but nothing of it remains once cleaned: the hint says so.
  const emptyEmail = problemsOf(CONTACT.validate({ ...CONTACT.valid, Email: " \u0001 " }));
  assert.deepEqual(emptyEmail, [
    {
      field: "Email",
      problem: "missing",
      hint: `Fill in "Email": its value was empty once spaces and control characters were removed`,
    },
  ]);
});

test("validateFields() reports a non-string value as a type problem", () => {
  const problems = problemsOf(CONTACT.validate({
    Name: 42,
    Email: ["ana@example.pt"],
    Message: null,
    Category: true,
  }));
  assert.deepEqual(problems, [
    { field: "Name", problem: "type", hint: `Send "Name" as a string` },
    { field: "Email", problem: "type", hint: `Send "Email" as a string` },
    { field: "Message", problem: "type", hint: `Send "Message" as a string` },
    { field: "Category", problem: "type", hint: `Send "Category" as a string` },
  ]);
});

test("validateFields() accepts e-mail addresses valid under the WHATWG rule", () => {
  for (
    const email of [
      "ana@example.pt",
      "ana.sousa+studio@example.co.uk",
      "ANA@EXAMPLE.PT",
      "a@b",
      "user!#$%&'*+/=?^_`{|}~-@example.pt",
      "ana@sub-domain.example.pt",
    ]
  ) {
    assert.equal(isEmailAddress(email), true, email);
    assert.equal(valueOf(CONTACT.validate({ ...CONTACT.valid, Email: email })).Email, email);
    assert.equal(valueOf(BOOKING.validate({ ...BOOKING.valid, email })).email, email);
  }
});

test("validateFields() rejects malformed e-mail addresses as a format problem", () => {
  for (
    const email of [
      "ana",
      "ana@",
      "@example.pt",
      "ana@@example.pt",
      "ana sousa@example.pt",
      "ana@example.pt\r\nBcc: eve@example.pt",
      "ana@exa\r\nmple.pt",
      "ana\n@example.pt",
      "ana@-example.pt",
      "ana@example..pt",
      "ana@example.pt.",
      "Ana <ana@example.pt>",
      "ana@exam_ple.pt",
    ]
  ) {
    assert.equal(isEmailAddress(email), false, JSON.stringify(email));
    assert.deepEqual(problemsOf(CONTACT.validate({ ...CONTACT.valid, Email: email })), [{
      field: "Email",
      problem: "format",
      hint: `Give "Email" as a valid e-mail address, such as "ana@example.pt"`,
    }], JSON.stringify(email));
    const booking = problemsOf(BOOKING.validate({ ...BOOKING.valid, email }));
    assert.deepEqual(booking.map(({ field, problem }) => ({ field, problem })), [
      { field: "email", problem: "format" },
    ]);
  }
});

test("validateFields() accepts only pt and en as BookingRequest locale", () => {
  assert.equal(valueOf(BOOKING.validate({ ...BOOKING.valid, locale: "pt" })).locale, "pt");
  assert.equal(valueOf(BOOKING.validate({ ...BOOKING.valid, locale: "en" })).locale, "en");
  for (const locale of ["de", "PT", "En", "es"]) {
    assert.deepEqual(problemsOf(BOOKING.validate({ ...BOOKING.valid, locale })), [
      { field: "locale", problem: "enum", hint: `Set "locale" to "pt" or "en"` },
    ], locale);
  }
  const long = problemsOf(BOOKING.validate({ ...BOOKING.valid, locale: "english" }));
  assert.deepEqual(long.map(({ field }) => field), ["locale"]);
});

test("validateFields() accepts a BookingRequest start with Z or a ±hh:mm offset", () => {
  for (
    const start of [
      "2026-12-01T09:30:00Z",
      "2026-12-01T09:30:00+01:00",
      "2026-12-01T09:30:00-05:30",
      "2026-12-01T09:30:00.250+00:00",
      "2028-02-29T10:00:00Z",
    ]
  ) {
    assert.equal(isDateTime(start), true, start);
    assert.equal(valueOf(BOOKING.validate({ ...BOOKING.valid, start })).start, start);
  }
});

test("validateFields() rejects a BookingRequest start that is not a real RFC 3339 instant", () => {
  for (
    const start of [
      "2026-02-30T10:00:00Z",
      "2027-02-29T10:00:00Z",
      "2026-12-01T09:30:00",
      "2026-12-01T09:30Z",
      "2026-12-01 09:30:00Z",
      "2026-12-01T25:00:00Z",
      "2026-12-01T09:60:00Z",
      "2026-12-01",
      "2026-12-01T09:30:00+0100",
      "tomorrow",
    ]
  ) {
    assert.equal(isDateTime(start), false, start);
    assert.deepEqual(problemsOf(BOOKING.validate({ ...BOOKING.valid, start })), [{
      field: "start",
      problem: "format",
      hint:
        `Give "start" as an ISO 8601 date-time with an offset, such as "2026-12-01T09:30:00+00:00"`,
    }], start);
  }
});

test(
  "isDateTime() rejects an offset outside RFC 3339's hours 00-23 and minutes 00-59",
  () => {
    for (const start of ["2026-12-01T09:30:00+24:00", "2026-12-01T09:30:00+99:99"]) {
      assert.equal(isDateTime(start), false, start);
      assert.deepEqual(
        problemsOf(BOOKING.validate({ ...BOOKING.valid, start })).map(({ problem }) => problem),
        ["format"],
      );
    }
  },
);

test("validateFields() lists problems in the order the field set declares", () => {
  const problems = problemsOf(BOOKING.validate({
    website: "http://spam.example",
    locale: "de",
    topic: "short",
    email: "not-an-address",
    name: "A",
    start: "2026-02-30T10:00:00Z",
  }));
  assert.deepEqual(problems.map(({ field, problem }) => ({ field, problem })), [
    { field: "start", problem: "format" },
    { field: "name", problem: "length" },
    { field: "email", problem: "format" },
    { field: "topic", problem: "length" },
    { field: "locale", problem: "enum" },
    { field: "website", problem: "length" },
  ]);
  const contact = problemsOf(CONTACT.validate({ gclid: "g".repeat(201), Message: "Hello" }));
  assert.deepEqual(contact.map(({ field }) => field), ["Name", "Email", "gclid"]);
});

for (const { schema, fields, bounds } of [CONTACT, BOOKING]) {
  test(`buildJsonSchema() describes ${schema} as its field descriptors declare`, () => {
    const jsonSchema = buildJsonSchema(fields);
    assert.equal(jsonSchema.type, "object");
    assert.equal(jsonSchema.additionalProperties, true);
    assert.deepEqual(
      jsonSchema.required,
      Object.entries(bounds).filter(([, field]) => field.required).map(([name]) => name),
    );
    const properties = jsonSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(properties), Object.keys(fields));
    for (const [name, field] of Object.entries(fields)) {
      const expected: Record<string, unknown> = {
        type: "string",
        description: field.description,
        maxLength: bounds[name].maxLength,
      };
      // A required field holds a character that cleaning leaves (not white space, not control).
      if (bounds[name].required) {
        expected.pattern =
          "[^\\s\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff]";
      }
      if (bounds[name].minLength) expected.minLength = bounds[name].minLength;
      if (field.format) expected.format = field.format;
      if (field.enum) expected.enum = [...field.enum];
      if (field.example !== undefined) expected.examples = [field.example];
      assert.deepEqual(properties[name], expected, name);
    }
  });
}

test("buildJsonSchema() gives required, bounds, format and enum for the spec's fields", () => {
  const contact = buildJsonSchema(CONTACT_FIELDS);
  assert.deepEqual(contact.required, ["Name", "Email", "Message"]);
  const contactProperties = contact.properties as Record<string, Record<string, unknown>>;
  assert.match(String(contact.description), /control characters are removed/);
  assert.deepEqual(contactProperties.Email, {
    type: "string",
    description: "Reply-to address of the sender.",
    pattern: "[^\\s\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff]",
    maxLength: 320,
    format: "email",
    examples: ["ana@example.pt"],
  });
  assert.equal(contactProperties.Message.minLength, 1);
  assert.equal(contactProperties.Message.maxLength, 5000);
  assert.equal("minLength" in contactProperties.Category, false);

  const booking = buildJsonSchema(BOOKING_FIELDS);
  assert.deepEqual(booking.required, ["start", "name", "email", "topic", "locale"]);
  const bookingProperties = booking.properties as Record<string, Record<string, unknown>>;
  assert.equal(bookingProperties.start.format, "date-time");
  assert.deepEqual(bookingProperties.locale.enum, ["pt", "en"]);
  assert.equal(bookingProperties.name.minLength, 2);
  assert.equal(bookingProperties.name.maxLength, 120);
  assert.equal(bookingProperties.topic.minLength, 10);
  assert.equal(bookingProperties.email.maxLength, 254);
  assert.equal(bookingProperties.website.maxLength, 0);
});

/** What superstruct alone decides for an input: the fast path must agree with it. */
function validateWithSuperstruct<F extends FieldSet>(
  fields: F,
  struct: Struct<FieldValues<F>, unknown>,
  input: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const strings = { ...input };
  for (const name of Object.keys(fields)) {
    if (strings[name] !== undefined && typeof strings[name] !== "string") return undefined;
  }
  const [error, value] = validate(strings, struct, { coerce: true });
  if (error) return undefined;
  const cleaned: Record<string, unknown> = {};
  for (const name of Object.keys(fields)) {
    const item = (value as Record<string, unknown>)[name];
    if (item !== undefined && item !== "") cleaned[name] = item;
  }
  return cleaned;
}

test("validateFields() accepts exactly what superstruct's rules accept, with the same value", () => {
  // The fast path for valid bodies runs the rules without superstruct: over values at and around
  // every bound, with white space, control characters, astral characters and wrong types.
  let seed = 15;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pieces = ["a", "é", "😀", " ", "\t", "\u0001", "\u0085", "@", ".", "x@y.pt", "-", "\n"];
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const superstructs: Record<string, (input: Record<string, unknown>) => unknown> = {
    ContactInquiry: (input) => validateWithSuperstruct(CONTACT_FIELDS, ContactInquiry, input),
    BookingRequest: (input) => validateWithSuperstruct(BOOKING_FIELDS, BookingRequest, input),
  };
  for (const { schema, fields, valid, validate: validateCase } of [CONTACT, BOOKING]) {
    const enums = Object.values(fields).flatMap((field) => field.enum ?? []);
    let accepted = 0;
    for (let round = 0; round < 3000; round++) {
      const input: Record<string, unknown> = { ...valid };
      for (const [name, field] of Object.entries(fields)) {
        const choice = random();
        if (choice < 0.5) continue;
        if (choice < 0.55) delete input[name];
        else if (choice < 0.58) input[name] = pick([1, null, ["a"], {}]);
        else if (choice < 0.65) input[name] = pick([...enums, "", "  ", "\u0002"]);
        else {
          const length = pick([
            0,
            1,
            2,
            field.minLength ?? 0,
            field.maxLength,
            field.maxLength + 1,
          ]);
          let text = "";
          while (text.length < length) text += pick(pieces);
          input[name] = random() < 0.5 ? text : ` ${pick(pieces)}${text.slice(0, length)} `;
        }
      }
      const expected = superstructs[schema](input);
      const outcome = validateCase(input);
      if (expected) accepted++;
      assert.deepEqual(outcome.ok ? outcome.value : undefined, expected, JSON.stringify(input));
    }
    assert.ok(accepted > 100 && accepted < 2900, `both outcomes met: ${accepted} accepted`);
  }
});
