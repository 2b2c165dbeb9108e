import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { buildServerConfig, buildServerLock } from "../../scripts/build_server.ts";
import { RUNTIME } from "../_kv.ts";

const ROOT = new URL("../../", import.meta.url);

test(
  "buildServerLock() keeps the packages the service's imports reach, with their dependencies, and none of the development tools'",
  { skip: RUNTIME !== "deno" && "reads the Deno lock" },
  () => {
    const lock = JSON.parse(readFileSync(new URL("deno.lock", ROOT), "utf8"));
    const cut = JSON.parse(buildServerLock(lock));
    const names = Object.keys(cut.npm).map((key) => key.replace(/^(@?[^@]+)@.*$/, "$1"));
    for (const name of ["itty-router", "structured-headers", "nodemailer", "@deno/kv"]) {
      assert.ok(names.includes(name), name);
    }
    for (
      const name of ["sharp", "satori", "playwright-core", "typescript", "@scalar/api-reference"]
    ) {
      assert.ok(!names.includes(name), name);
    }
    assert.ok(Object.keys(cut.npm).length < Object.keys(lock.npm).length / 3);
    // Every dependency of a kept package is kept: the frozen lock resolves all it names.
    for (const [key, entry] of Object.entries<{ dependencies?: string[] }>(cut.npm)) {
      for (const dependency of entry.dependencies ?? []) {
        assert.ok(
          dependency in cut.npm || names.includes(dependency),
          `${key} → ${dependency}`,
        );
      }
    }
    assert.deepEqual(cut.workspace.dependencies, lock.workspace.dependencies);
    const config = JSON.parse(
      buildServerConfig(JSON.parse(readFileSync(new URL("deno.json", ROOT), "utf8"))),
    );
    assert.deepEqual(config.lock, { path: "./deno.lock", frozen: true });
    assert.equal(config.workspace, undefined);
  },
);
