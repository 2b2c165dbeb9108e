/**
 * The edge between field validation and the API's answer: a failed validation becomes the
 * ErrorResponse `validation-failed` (spec, Errors). Kept apart from `fields.ts`, which knows no
 * error class, so that the contract has no import circle.
 *
 * @module
 */
import type { Struct } from "superstruct";
import { ApiError } from "./api_error.ts";
import { type FieldSet, type FieldValues, validateFields } from "./fields.ts";

/**
 * Validates like {@linkcode validateFields} and throws the API's answer to a failure.
 *
 * @returns The typed value.
 * @throws {ApiError} 400 `validation-failed` whose hint names the first failing field, with every
 * failing field in `details`.
 */
export function requireFields<F extends FieldSet>(
  fields: F,
  struct: Struct<FieldValues<F>, unknown>,
  input: Record<string, unknown>,
): FieldValues<F> {
  const result = validateFields(fields, struct, input);
  if (result.ok) return result.value;
  const [first] = result.problems;
  throw new ApiError("validation-failed", {
    status: 400,
    message: `Field "${first.field}" is invalid`,
    hint: first.hint,
    details: result.problems,
  });
}
