/**
 * Field descriptors: the single source of each request field's bounds, from which both the
 * superstruct validator and the OpenAPI (JSON Schema 2020-12) schema are built, so the two cannot
 * disagree (STYLE.md, "One place for each fact").
 *
 * @module
 */
import { coerce, define, type Failure, string, type Struct, type, validate } from "superstruct";

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
 * The WHATWG HTML "valid e-mail address" (the rule of `<input type="email">`): no spaces, no
 * control characters, one `@`, a dotted domain of letters, digits and hyphens.
 * Source: https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address
 */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** RFC 3339 `date-time`: a full date, a time and an offset (`Z` or `±hh:mm`). */
const DATE_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * Control characters that no field may carry (C0 but tab, line feed and carriage return; DEL;
 * C1): RFC 5545 forbids them in iCalendar text and no mail body needs them, so they are removed
 * before a field is checked.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Whether `value` is a valid e-mail address under the WHATWG rule. */
export function isEmailAddress(value: string): boolean {
  return EMAIL_PATTERN.test(value);
}

/** Whether `value` is an RFC 3339 date-time naming a real instant (no 31 February, no hour 25). */
export function isDateTime(value: string): boolean {
  const match = DATE_TIME_PATTERN.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  // setUTCFullYear, unlike Date.UTC, takes years 0 to 99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute;
}

/** Counts Unicode code points, as JSON Schema's `minLength`/`maxLength` do. */
export function countCodePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function buildFieldStruct(field: TextField): Struct<string | undefined, null> {
  const checked = define<string | undefined>("field", (value) => {
    if (value === undefined) return !field.required;
    if (typeof value !== "string") return false;
    const length = countCodePoints(value);
    if (length < (field.minLength ?? 0) || length > field.maxLength) return false;
    if (field.enum && !field.enum.includes(value)) return false;
    if (field.format === "email" && !isEmailAddress(value)) return false;
    if (field.format === "date-time" && !isDateTime(value)) return false;
    return true;
  });
  return coerce(checked, string(), (value) => value.replace(CONTROL_CHARACTERS, "").trim());
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
  for (const [name, field] of Object.entries(fields)) schema[name] = buildFieldStruct(field);
  // The mapped type FieldValues<F> is what these per-field structs produce; superstruct cannot
  // infer it from a schema built in a loop, hence the cast.
  return type(schema) as unknown as Struct<FieldValues<F>, unknown>;
}

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
  return { type: "object", properties, required, additionalProperties: true };
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

function describeFailure(fields: FieldSet, failure: Failure): FieldProblem {
  const name = String(failure.key);
  const field = fields[name];
  const value: unknown = failure.value;
  if (value === undefined || (field.required && value === "")) {
    return { field: name, problem: "missing", hint: `Add "${name}": it is required` };
  }
  if (typeof value !== "string") {
    return { field: name, problem: "type", hint: `Send "${name}" as a string` };
  }
  if (field.enum && !field.enum.includes(value)) {
    const allowed = field.enum.map((item) => `"${item}"`).join(" or ");
    return { field: name, problem: "enum", hint: `Set "${name}" to ${allowed}` };
  }
  const length = countCodePoints(value);
  const min = field.minLength ?? 0;
  if (length < min || length > field.maxLength) {
    const bounds = field.maxLength === 0
      ? "leave it empty"
      : min > 0
      ? `use ${min} to ${field.maxLength} characters`
      : `use at most ${field.maxLength} characters`;
    const hint = min > 0 && length === 0
      ? `Add "${name}": it is required (${min} to ${field.maxLength} characters)`
      : `Shorten or lengthen "${name}": ${bounds} (it has ${length})`;
    return { field: name, problem: length === 0 ? "missing" : "length", hint };
  }
  if (field.format === "email") {
    return {
      field: name,
      problem: "format",
      hint: `Give "${name}" as a valid e-mail address, such as "ana@example.pt"`,
    };
  }
  return {
    field: name,
    problem: "format",
    hint:
      `Give "${name}" as an ISO 8601 date-time with an offset, such as "2026-12-01T09:30:00+00:00"`,
  };
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
  const refused = new Set(typeProblems.map((problem) => problem.field));
  const described = (error?.failures() ?? []).map((failure) => describeFailure(fields, failure))
    .filter((problem) => !refused.has(problem.field));
  const problems = [...described, ...typeProblems]
    .sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
  return { ok: false, problems };
}
