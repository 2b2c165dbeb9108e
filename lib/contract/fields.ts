/**
 * Field descriptors: the single source of each request field's bounds, from which both the
 * superstruct validator and the OpenAPI (JSON Schema 2020-12) schema are built, so the two cannot
 * disagree (docs/style.md, "One place for each fact").
 *
 * @module
 */
import { type Failure, optional, refine, Struct, type, validate } from "superstruct";
import { countCodePoints, isDateTime, isEmailAddress } from "./text_formats.ts";

export { countCodePoints, isDateTime, isEmailAddress } from "./text_formats.ts";

/** A text field of a request body: every field of ContactInquiry and BookingRequest is one. */
export interface TextField {
  /** Whether the field must be present (after trimming, an empty optional field counts as given). */
  required: boolean;
  /** Fewest Unicode code points after trimming. @default {0} */
  minLength?: number;
  /** Most Unicode code points after trimming. */
  maxLength: number;
  /** A format the value must have: `email` (WHATWG valid e-mail address), `date-time` (RFC 3339). */
  format?: "email" | "date-time";
  /** The only values allowed. */
  enum?: readonly string[];
  /** What the field means, for the OpenAPI document. */
  description: string;
  /** An example value, for the OpenAPI document. */
  example?: string;
}

/** The fields of one request body, by name. */
export type FieldSet = Readonly<Record<string, TextField>>;

type FieldValue<F extends TextField> = F["enum"] extends readonly (infer E)[] ? E : string;

/** The validated value of a field set: required fields are strings, the others may be absent. */
export type FieldValues<F extends FieldSet> =
  & { [K in keyof F as F[K]["required"] extends true ? K : never]: FieldValue<F[K]> }
  & { [K in keyof F as F[K]["required"] extends true ? never : K]?: FieldValue<F[K]> };

/** A JSON Schema (2020-12) object, as embedded in the OpenAPI document. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * Control characters that no field may carry (C0 but tab, line feed and carriage return; DEL;
 * C1): RFC 5545 forbids them in iCalendar text and no mail body needs them, so they are removed
 * before a field is checked. So are the invisible formatting characters that reorder or hide what
 * a person reads (Unicode's bidirectional embeddings, overrides and isolates, U+202A–U+202E and
 * U+2066–U+2069; the zero-width space, joiners and marks, U+200B–U+200F; the byte order mark,
 * U+FEFF): a name or message could otherwise display reversed in a mail or on the desk
 * ("Trojan Source", CVE-2021-42574).
 */
const CONTROL_CHARACTERS =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * The rules a field can break, each the name of a superstruct refinement, checked in this order:
 * a field that breaks several is reported by the first.
 */
type FieldRule = "required" | "enum" | "too-short" | "too-long" | "format";

/** Each format's check, and how its hint describes a valid value. */
const FORMATS: Readonly<
  Record<NonNullable<TextField["format"]>, { check: (value: string) => boolean; hint: string }>
> = {
  email: { check: isEmailAddress, hint: 'a valid e-mail address, such as "ana@example.pt"' },
  "date-time": {
    check: isDateTime,
    hint: 'an ISO 8601 date-time with an offset, such as "2026-12-01T09:30:00+00:00"',
  },
};

/** A text value as the fields take it: control characters removed, white space trimmed. */
function toText(value: string): string {
  return value.replace(CONTROL_CHARACTERS, "").trim();
}

/**
 * A string, with control characters removed and surrounding white space trimmed when coerced.
 * Written as one struct rather than superstruct's `coerce(string(), string(), …)`, whose
 * condition builds a `StructError` (and its stack trace) for every absent optional field, a large
 * share of a contact inquiry's server time.
 */
const TEXT = new Struct<string, null>({
  type: "string",
  schema: null,
  coercer: (value) => typeof value === "string" ? toText(value) : value,
  validator: (value) =>
    typeof value === "string" || `Expected a string, but received: ${typeof value}`,
});

/** The rules in the order they are checked. */
const FIELD_RULES: readonly FieldRule[] = ["required", "enum", "too-short", "too-long", "format"];

function describeBounds(field: TextField): string {
  const min = field.minLength ?? 0;
  const max = field.maxLength;
  return max === 0
    ? "leave it empty"
    : min > 0
    ? `use ${min} to ${max} characters`
    : `use at most ${max} characters`;
}

/**
 * Checks one rule of a field on its trimmed value: `true` when the value keeps it (a rule the
 * field does not have is kept), else the hint for a person. The one definition of each rule,
 * which both the superstruct refinements and the fast path of {@linkcode validateFields} run.
 */
function checkRule(
  rule: FieldRule,
  name: string,
  field: TextField,
  value: string | undefined,
): true | string {
  switch (rule) {
    case "required":
      return !field.required || (value !== undefined && value !== "") ||
        (value === undefined
          ? `Add "${name}": it is required`
          : `Fill in "${name}": its value was empty once spaces and control characters were removed`);
    case "enum": {
      const allowed = field.enum;
      if (!allowed || value === undefined || allowed.includes(value)) return true;
      return `Set "${name}" to ${allowed.map((item) => `"${item}"`).join(" or ")}`;
    }
    case "too-short": {
      const min = field.minLength ?? 0;
      // A string has at least half as many code points as UTF-16 units: most need no count.
      if (value === undefined || value.length >= 2 * min) return true;
      const length = countCodePoints(value);
      if (length >= min) return true;
      return length === 0
        ? `Add "${name}": it is required (${min} to ${field.maxLength} characters)`
        : `Shorten or lengthen "${name}": ${describeBounds(field)} (it has ${length})`;
    }
    case "too-long": {
      // A string has at most as many code points as UTF-16 units.
      if (value === undefined || value.length <= field.maxLength) return true;
      const length = countCodePoints(value);
      return length <= field.maxLength ||
        `Shorten or lengthen "${name}": ${describeBounds(field)} (it has ${length})`;
    }
    case "format": {
      const format = field.format;
      return !format || value === undefined || FORMATS[format].check(value) ||
        `Give "${name}" as ${FORMATS[format].hint}`;
    }
  }
}

/**
 * Builds the struct of one field: control characters removed and the value trimmed, then one
 * refinement per rule, whose failure message is the hint for a person.
 */
function buildFieldStruct(name: string, field: TextField): Struct<string | undefined, null> {
  let struct: Struct<string | undefined, null> = optional(TEXT);
  for (const rule of FIELD_RULES) {
    if (rule === "enum" && !field.enum) continue;
    if (rule === "format" && !field.format) continue;
    struct = refine(struct, rule, (value) => checkRule(rule, name, field, value));
  }
  return struct;
}

/**
 * Builds the superstruct validator of a field set: unknown members are ignored, strings are
 * trimmed, and each field's bounds, enum and format are enforced.
 *
 * @param fields The field descriptors.
 * @returns A struct whose `validate(value, struct, { coerce: true })` yields {@linkcode FieldValues}.
 */
export function buildStruct<F extends FieldSet>(fields: F): Struct<FieldValues<F>, unknown> {
  const schema: Record<string, Struct<string | undefined, null>> = {};
  for (const [name, field] of Object.entries(fields)) schema[name] = buildFieldStruct(name, field);
  // The mapped type FieldValues<F> is what these per-field structs produce; superstruct cannot
  // infer it from a schema built in a loop, hence the cast.
  return type(schema) as unknown as Struct<FieldValues<F>, unknown>;
}

/** How every text field is cleaned before its checks, as the OpenAPI document says of a body. */
const CLEANING_NOTE =
  "In every text field, control characters are removed and surrounding white space trimmed before the checks; the bounds count what remains, in Unicode code points.";

/**
 * A JSON Schema pattern (ECMA-262, not anchored): the value holds a character that is neither
 * white space nor a control character (C0, DEL, C1), as {@linkcode CONTROL_CHARACTERS} removes.
 */
const VISIBLE_CHARACTER_PATTERN =
  "[^\\s\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff]";

/**
 * Builds the JSON Schema (2020-12) of a field set, as the OpenAPI document declares it.
 *
 * @param fields The field descriptors.
 * @returns An `object` schema with each field's `type`, bounds, `format`, `enum` and description.
 */
export function buildJsonSchema(fields: FieldSet): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    const property: JsonSchema = { type: "string", description: field.description };
    // Required: at least one character that is neither white space nor a control character,
    // which is what remains of a value once it is cleaned.
    if (field.required) property.pattern = VISIBLE_CHARACTER_PATTERN;
    if (field.minLength) property.minLength = field.minLength;
    property.maxLength = field.maxLength;
    if (field.format) property.format = field.format;
    if (field.enum) property.enum = [...field.enum];
    if (field.example !== undefined) property.examples = [field.example];
    properties[name] = property;
  }
  const required = Object.entries(fields).filter(([, field]) => field.required).map(([name]) =>
    name
  );
  return {
    type: "object",
    description: CLEANING_NOTE,
    properties,
    required,
    additionalProperties: true,
  };
}

/** One field that failed validation, with the text that tells a person how to fix it. */
export interface FieldProblem {
  /** The field's name as the request carries it, for example `Email`. */
  field: string;
  /** A machine-readable kind: `missing`, `type`, `length`, `enum`, `format`. */
  problem: "missing" | "type" | "length" | "enum" | "format";
  /** How to fix it, in one sentence. */
  hint: string;
}

/** The problem kind each rule's failure reports. */
const RULE_PROBLEMS: Readonly<Record<FieldRule, FieldProblem["problem"]>> = {
  required: "missing",
  enum: "enum",
  "too-short": "length",
  "too-long": "length",
  format: "format",
};

function isFieldRule(refinement: string | undefined): refinement is FieldRule {
  return refinement !== undefined && Object.hasOwn(RULE_PROBLEMS, refinement);
}

/** Turns a field's failure into its problem: the rule names the kind, its message is the hint. */
function describeFailure(failure: Failure): FieldProblem {
  const field = String(failure.key);
  if (!isFieldRule(failure.refinement)) {
    // Only a value that is not a string fails outside the rules, and validateFields refuses
    // those before superstruct runs: this is a safety net.
    return { field, problem: "type", hint: `Send "${field}" as a string` };
  }
  // An empty value below a minimum length is missing, not of the wrong length.
  const problem = failure.refinement === "too-short" && failure.value === ""
    ? "missing"
    : RULE_PROBLEMS[failure.refinement];
  return { field, problem, hint: failure.message };
}

/**
 * The fast path of {@linkcode validateFields}, for the common case of a valid body: the same
 * rules ({@linkcode checkRule}) on the same trimmed values, without superstruct's generators and
 * context objects, which weigh on every contact inquiry's main-thread time.
 *
 * @returns The cleaned value, as superstruct's path would return it, or `undefined` when any
 * field breaks a rule (superstruct's path then describes every failure).
 */
function readValidFields(
  fields: FieldSet,
  input: Record<string, unknown>,
): Record<string, string> | undefined {
  const cleaned: Record<string, string> = {};
  for (const name in fields) {
    const field = fields[name];
    const item = input[name];
    if (item !== undefined && typeof item !== "string") return undefined;
    const value = item === undefined ? undefined : toText(item);
    for (const rule of FIELD_RULES) {
      if (checkRule(rule, name, field, value) !== true) return undefined;
    }
    if (value !== undefined && value !== "") cleaned[name] = value;
  }
  return cleaned;
}

/** The outcome of {@linkcode validateFields}. */
export type FieldValidation<F extends FieldSet> =
  | { ok: true; value: FieldValues<F> }
  | { ok: false; problems: FieldProblem[] };

/**
 * Validates a parsed body against a field set, trimming strings and ignoring unknown members.
 *
 * @param fields The field descriptors the struct was built from.
 * @param struct The struct from {@linkcode buildStruct}.
 * @param input A parsed body: must be a plain object (the caller answers `bad-form` otherwise).
 * @returns The typed value, or every failing field in the order the field set declares them.
 */
export function validateFields<F extends FieldSet>(
  fields: F,
  struct: Struct<FieldValues<F>, unknown>,
  input: Record<string, unknown>,
): FieldValidation<F> {
  const valid = readValidFields(fields, input);
  if (valid) return { ok: true, value: valid as FieldValues<F> };
  // A member that is not a string is refused here, before superstruct: its failure message
  // prints the value, which throws for `{"toString":1}` and overflows the stack for arrays
  // nested thousands deep.
  const typeProblems: FieldProblem[] = [];
  const strings: Record<string, unknown> = { ...input };
  for (const name of Object.keys(fields)) {
    const item = input[name];
    if (item === undefined || typeof item === "string") continue;
    typeProblems.push({ field: name, problem: "type", hint: `Send "${name}" as a string` });
    delete strings[name];
  }
  const [error, value] = validate(strings, struct, { coerce: true });
  if (!error && !typeProblems.length) {
    // Optional fields left empty after trimming carry no information: drop them.
    const cleaned: Record<string, unknown> = {};
    for (const name of Object.keys(fields)) {
      const item = (value as Record<string, unknown>)[name];
      if (item !== undefined && item !== "") cleaned[name] = item;
    }
    return { ok: true, value: cleaned as FieldValues<F> };
  }
  const order = Object.keys(fields);
  // A field that breaks several rules is reported once, by the first rule it breaks.
  const reported = new Set(typeProblems.map((problem) => problem.field));
  const described: FieldProblem[] = [];
  for (const failure of error?.failures() ?? []) {
    const problem = describeFailure(failure);
    if (reported.has(problem.field)) continue;
    reported.add(problem.field);
    described.push(problem);
  }
  const problems = [...described, ...typeProblems]
    .sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
  return { ok: false, problems };
}
