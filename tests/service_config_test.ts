import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { RUNTIME } from "./_kv.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

interface Config {
  imports: Record<string, string>;
}

function readConfig(name: string): Config {
  return JSON.parse(readFileSync(`${ROOT}${name}`, "utf8"));
}

/** The bare specifiers of npm packages that the entry's module graph imports, dynamic ones too. */
function listNpmImports(entry: string): Set<string> {
  const output = execFileSync(process.execPath, ["info", "--json", entry], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  const graph: {
    modules: Array<{ dependencies?: Array<{ specifier: string; code?: { specifier: string } }> }>;
  } = JSON.parse(output);
  const names = new Set<string>();
  for (const module of graph.modules) {
    for (const dependency of module.dependencies ?? []) {
      if (dependency.code?.specifier.startsWith("npm:")) names.add(dependency.specifier);
    }
  }
  return names;
}

// deno.service.json is what `deno task start` and `deno serve` run with: only the run-time
// dependencies, so a first start installs no test or build tool (issue 15). Every e2e test starts
// the service with it; this test checks that it also covers the imports only some requests reach
// (dynamic ones) and pins the same versions as deno.json.
test(
  "deno.service.json maps every npm import of main.ts and serve.ts, dynamic ones too, as deno.json does",
  {
    skip: RUNTIME !== "deno" && "reads the Deno configuration",
  },
  () => {
    const service = readConfig("deno.service.json");
    const full = readConfig("deno.json");
    const needed = new Set([...listNpmImports("main.ts"), ...listNpmImports("serve.ts")]);
    assert.ok(needed.has("date-holidays"), "the dynamic import of date-holidays is seen");
    for (const specifier of needed) {
      assert.ok(specifier in service.imports, `deno.service.json maps "${specifier}"`);
    }
    for (const [specifier, target] of Object.entries(service.imports)) {
      assert.equal(target, full.imports[specifier], `"${specifier}" as in deno.json`);
      assert.ok(needed.has(specifier), `"${specifier}" is imported by the service`);
    }
  },
);
