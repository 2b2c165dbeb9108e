import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../../../lib/contract/api_error.ts";
import { ERROR_STATUS_CODES } from "../../../lib/contract/contract.ts";

test("ApiError takes only the status/code pairs of the contract's table: another pair does not compile", () => {
  const refused = new ApiError("rate-limited", { status: 429, message: "Slow down", hint: "Wait" });
  assert.equal(refused.status, 429);
  // `deno check` (deno task check, in CI) fails if either line below compiles: the pairs are not
  // in ERROR_STATUS_CODES.
  // @ts-expect-error 400 is not a status of rate-limited
  new ApiError("rate-limited", { status: 400, message: "x", hint: "y" });
  // @ts-expect-error 404 is not a status of validation-failed
  new ApiError("validation-failed", { status: 404, message: "x", hint: "y" });
  assert.ok(
    ERROR_STATUS_CODES.every((row) => row.status >= 400 && row.status <= 599),
    "every pair is an error status",
  );
});
