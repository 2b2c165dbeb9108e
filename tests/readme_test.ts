/**
 * The README states the contract's status/code pairs and rate-limit figures; this test keeps the
 * two from drifting apart (the table is the contract's `ERROR_STATUS_CODES`, row for row).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ERROR_STATUS_CODES, RATE_LIMIT_POLICIES } from "../lib/contract/contract.ts";
import { RUNTIME } from "./_kv.ts";

const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "reads the repository's README (Deno run)" };

function readReadme(): string {
  return readFileSync(new URL("../README.md", import.meta.url), "utf8");
}

test("README's status table is the contract's ERROR_STATUS_CODES, row for row", SOURCE_ONLY, () => {
  const rows = readReadme().split("\n")
    .filter((line) => /^\| \d{3} +\|/.test(line))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
  assert.deepEqual(
    rows,
    ERROR_STATUS_CODES.map(({ status, code, condition }) => [
      String(status),
      `\`${code}\``,
      condition,
    ]),
  );
});

test("README states each rate-limit policy's default quota and window", SOURCE_ONLY, () => {
  const text = readReadme().replace(/\s+/g, " ");
  for (const policy of Object.values(RATE_LIMIT_POLICIES)) {
    assert.ok(
      text.includes(`${policy.limit} per ${policy.windowSeconds} s`),
      `${policy.name}: ${policy.limit} per ${policy.windowSeconds} s`,
    );
  }
});
