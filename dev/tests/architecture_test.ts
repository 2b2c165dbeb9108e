/**
 * The house's arrows (STYLE.md, "The shape of the house"): entries → app → routes → lib, with
 * runtime adapters injected by the entries. This test reads the relative imports of every module
 * of the project (type-only imports included) and fails on a circle or an upward arrow.
 */
import { test } from "node:test";
import { RUNTIME } from "./_kv.ts";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "..", ".."));

/** The suite on Node and Bun runs against the compiled package: there is no source to read. */
const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "reads the TypeScript sources (Deno run)" };

/** The runtime entries: each a few lines, and none imports another. */
const ENTRIES = ["main.ts", "serve.ts", "node.ts", "bun.ts", "cli.ts", "npm.ts"];

/** Relative specifiers of static imports, re-exports and dynamic imports. */
const IMPORT_PATTERN =
  /(?:^|[\s;])(?:import|export)\s*(?:type\s+)?(?:[^"'`;]*?\sfrom\s*)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gm;

/** Removes comments, so that `@example` code and prose are not read as imports. */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

function listModules(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(ROOT, folder))) {
    const path = folder ? `${folder}/${name}` : name;
    if (statSync(join(ROOT, path)).isDirectory()) {
      if (folder !== "") found.push(...listModules(path));
    } else if (name.endsWith(".ts") && !name.endsWith(".generated.ts")) {
      found.push(path);
    }
  }
  return found;
}

/** The project's modules (root files, lib/, routes/, adapters/) and what each imports. */
function readGraph(): Map<string, string[]> {
  const modules = [
    ...listModules("").filter((path) => !path.includes("/")),
    ...listModules("lib"),
    ...listModules("routes"),
    ...listModules("adapters"),
  ];
  const graph = new Map<string, string[]>();
  for (const path of modules) {
    const code = stripComments(readFileSync(join(ROOT, path), "utf8"));
    const targets = [...code.matchAll(IMPORT_PATTERN)].map((match) =>
      relative(ROOT, join(ROOT, dirname(path), match[1] ?? match[2])).replaceAll("\\", "/")
    );
    graph.set(path, targets);
  }
  return graph;
}

const GRAPH = readGraph();

function violations(rule: (from: string, to: string) => boolean): string[] {
  const found: string[] = [];
  for (const [from, targets] of GRAPH) {
    for (const to of targets) if (rule(from, to)) found.push(`${from} → ${to}`);
  }
  return found;
}

test(
  "the import graph of lib/, routes/, adapters/ and the entries has no circle",
  SOURCE_ONLY,
  () => {
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const trail: string[] = [];
    const visit = (module: string) => {
      if (state.get(module) === "done") return;
      if (state.get(module) === "open") {
        circles.push([...trail.slice(trail.indexOf(module)), module].join(" → "));
        return;
      }
      state.set(module, "open");
      trail.push(module);
      for (const target of GRAPH.get(module) ?? []) if (GRAPH.has(target)) visit(target);
      trail.pop();
      state.set(module, "done");
    };
    for (const module of GRAPH.keys()) visit(module);
    assert.deepEqual(circles, []);
  },
);

test("lib/ imports neither routes/, adapters/, content/ nor a root module", SOURCE_ONLY, () => {
  assert.deepEqual(
    violations((from, to) => from.startsWith("lib/") && !to.startsWith("lib/")),
    [],
  );
});

test("lib/contract/ imports nothing of ours outside itself", SOURCE_ONLY, () => {
  assert.deepEqual(
    violations((from, to) => from.startsWith("lib/contract/") && !to.startsWith("lib/contract/")),
    [],
  );
});

test("routes/ and adapters/ import only lib/ and their own folder", SOURCE_ONLY, () => {
  assert.deepEqual(
    violations((from, to) =>
      (from.startsWith("routes/") && !to.startsWith("lib/") && !to.startsWith("routes/")) ||
      (from.startsWith("adapters/") && !to.startsWith("lib/") && !to.startsWith("adapters/"))
    ),
    [],
  );
});

test("an entry never imports another entry, and nothing imports an entry", SOURCE_ONLY, () => {
  assert.deepEqual(violations((_from, to) => ENTRIES.includes(to)), []);
});

test("the import test reads the graph it claims to read", SOURCE_ONLY, () => {
  // A reader that found no imports would pass every rule above.
  assert.ok(GRAPH.size > 60, `only ${GRAPH.size} modules read`);
  assert.ok(GRAPH.get("create_handler.ts")?.includes("routes/mod.ts"));
  assert.ok(GRAPH.get("routes/mod.ts")?.includes("routes/health.ts"));
  assert.ok(GRAPH.get("lib/http/create_pipeline.ts")?.includes("lib/http/route.ts"));
});

test(
  "routes are entries of one table: no module of routes/ but mod.ts writes a route",
  SOURCE_ONLY,
  () => {
    // A route entry names its method; the API's operations come from the contract through
    // buildOperationRoutes, every other route is written in routes/mod.ts.
    const writers = [...GRAPH.keys()].filter((path) =>
      path.startsWith("routes/") && path !== "routes/mod.ts" &&
      /\bmethod:\s*"(?:GET|POST)"\s*[,}]/.test(
        stripComments(readFileSync(join(ROOT, path), "utf8")),
      )
    );
    assert.deepEqual(writers, []);
    const table = stripComments(readFileSync(join(ROOT, "routes/mod.ts"), "utf8"));
    assert.match(table, /\bmethod:\s*"POST"/, "the check reads the table's entries");
  },
);
