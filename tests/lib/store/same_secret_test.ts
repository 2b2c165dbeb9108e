import { test } from "node:test";
import assert from "node:assert/strict";
import { isSameSecret } from "../../../lib/store/same_secret.ts";

test("isSameSecret() accepts only the same text: not another of its length, nor a prefix or a longer one", () => {
  const kept = "Qm9vay1hLWNvbnZlcnNhdGlvbi13aXRoLXRoZS1zdHVk";
  assert.ok(isSameSecret(kept, kept));
  assert.ok(isSameSecret(kept, kept.slice()));
  for (let index = 0; index < kept.length; index++) {
    const altered = kept.slice(0, index) + (kept[index] === "A" ? "B" : "A") +
      kept.slice(index + 1);
    assert.ok(!isSameSecret(kept, altered), `differs at ${index}`);
  }
  for (const candidate of ["", kept.slice(0, -1), `${kept}A`, kept.toLowerCase()]) {
    assert.ok(!isSameSecret(kept, candidate), candidate);
  }
  assert.ok(isSameSecret("", ""));
});
