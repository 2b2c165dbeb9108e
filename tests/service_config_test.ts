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
      if (dependency.code && toPackageName(dependency.code.specifier)) {
        names.add(dependency.specifier);
      }
    }
  }
  return names;
}

/**
 * The npm package a resolved module belongs to: `npm:name@version/…`, or, with deno.json's
 * `node_modules`, `…/node_modules/.deno/name@version/node_modules/name/…`; else `undefined`.
 */
function toPackageName(specifier: string): string | undefined {
  return /^npm:\/?((?:@[^/]+\/)?[^@/]+)/.exec(specifier)?.[1] ??
    /\/node_modules\/\.deno\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(specifier)?.[1];
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

/** The modules main.ts loads before it serves: its static imports, transitively (not dynamic ones). */
function listStartUpModules(entry: string): string[] {
  const output = execFileSync(process.execPath, ["info", "--json", entry], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  const graph: {
    roots: string[];
    modules: Array<{
      specifier: string;
      dependencies?: Array<{ isDynamic?: boolean; code?: { specifier: string } }>;
    }>;
  } = JSON.parse(output);
  const bySpecifier = new Map(graph.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const pending = [...graph.roots];
  while (pending.length) {
    const specifier = pending.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code) pending.push(dependency.code.specifier);
    }
  }
  return [...seen];
}

// Issue 15: on Deno the first `node:` module or CommonJS package starts Node's compatibility layer
// (~15–20 ms of every cold start), and the site's routes and the booking's and MCP's libraries are
// needed by their first request only. What start-up loads is kept to ES modules of a few small packages.
test(
  "start-up loads no node: module, no CommonJS package and none of the libraries of later requests",
  { skip: RUNTIME !== "deno" && "reads the Deno module graph" },
  () => {
    for (const entry of ["main.ts", "serve.ts"]) {
      const modules = listStartUpModules(entry);
      assert.deepEqual(modules.filter((specifier) => specifier.startsWith("node:")), [], entry);
      const packages = new Set(modules.map(toPackageName).filter((name) => name !== undefined));
      assert.deepEqual(
        [...packages].sort(),
        ["itty-router", "structured-headers", "superstruct"],
        `${entry}: ES module packages only`,
      );
      for (
        const later of [
          "lib/site/build_site.ts",
          "lib/booking/bookings.ts",
          "routes/_mcp_server.ts",
          "routes/site.ts",
          "routes/content.ts",
          "content/corpus.generated.ts",
        ]
      ) {
        assert.ok(
          !modules.some((specifier) => specifier.endsWith(later)),
          `${entry} loads ${later}`,
        );
      }
    }
  },
);

test("deno.service.json loads dynamic imports when they run, not at start-up", {
  skip: RUNTIME !== "deno" && "reads the Deno configuration",
}, () => {
  const service = JSON.parse(readFileSync(`${ROOT}deno.service.json`, "utf8"));
  assert.ok(service.unstable.includes("lazy-dynamic-imports"));
});

// Issue 15: a newcomer's `task start` downloads what the service needs, not the development tools.
// Deno's "auto" node_modules would install every package of deno.lock (about 500 MB) at the first
// `deno task`; "manual" leaves that to `deno task install`, which every task but start runs first.
test("task start installs no development tool; every other task installs them first", {
  skip: RUNTIME !== "deno" && "reads the Deno configuration",
}, () => {
  const full = JSON.parse(readFileSync(`${ROOT}deno.json`, "utf8"));
  const service = JSON.parse(readFileSync(`${ROOT}deno.service.json`, "utf8"));
  assert.equal(full.nodeModulesDir, "manual");
  assert.equal(service.nodeModulesDir, "none");
  assert.match(full.tasks.start, /^deno run --config deno.service.json /);
  for (const [name, task] of Object.entries(full.tasks)) {
    if (name === "start" || name === "install") continue;
    assert.deepEqual((task as { dependencies?: string[] }).dependencies, ["install"], name);
  }
});
