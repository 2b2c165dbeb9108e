import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { START_UP_PACKAGES } from "../scripts/build_server.ts";
import { RUNTIME } from "./_kv.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

interface Config {
  imports: Record<string, string>;
}

function readConfig(name: string): Config {
  return JSON.parse(readFileSync(`${ROOT}${name}`, "utf8"));
}

/**
 * The bare specifiers of npm packages that the entry's module graph imports, dynamic and type-only
 * ones too.
 */
function listNpmImports(entry: string): Set<string> {
  const output = execFileSync(process.execPath, ["info", "--json", entry], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  const graph: {
    modules: Array<{
      dependencies?: Array<
        { specifier: string; code?: { specifier: string }; type?: { specifier: string } }
      >;
    }>;
  } = JSON.parse(output);
  const names = new Set<string>();
  for (const module of graph.modules) {
    for (const dependency of module.dependencies ?? []) {
      // Type-only imports (`import type`) count: the type checker and the npm build need them.
      const resolved = dependency.code ?? dependency.type;
      if (resolved && toPackageName(resolved.specifier)) {
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

// deno.json at the root is the service as a user checks it out: its imports are what the
// service's module graph (dynamic imports too) needs on Deno, Node or Bun, and nothing else; the
// development tools' packages live in tests/deno.json and scripts/deno.json, the workspace members.
test(
  "deno.json maps exactly the npm imports of the service's entries, tests/ and scripts/ none of them",
  {
    skip: RUNTIME !== "deno" && "reads the Deno configuration",
  },
  () => {
    const root = readConfig("deno.json");
    const members = [readConfig("tests/deno.json"), readConfig("scripts/deno.json")];
    // A bare specifier's package: "temporal-polyfill/global" → "temporal-polyfill".
    const toName = (specifier: string) =>
      specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
    const needed = new Set(
      [
        "main.ts",
        "compose/create_app.ts",
        "adapters/deno/main.ts",
        "adapters/deno/serve.ts",
        "adapters/node/main.ts",
        "adapters/bun/main.ts",
        "adapters/npm/cli.ts",
        "adapters/npm/mod.ts",
      ].flatMap((entry) => [...listNpmImports(entry)].map(toName)),
    );
    assert.ok(needed.has("date-holidays"), "the dynamic import of date-holidays is seen");
    // The `@types/` packages that type an untyped package (negotiator, nodemailer) are not imported.
    const typesOnly = (specifier: string) => specifier.startsWith("@types/");
    for (const specifier of needed) {
      assert.ok(specifier in root.imports, `deno.json maps "${specifier}"`);
      for (const member of members) {
        assert.ok(!(specifier in member.imports), `a member's deno.json maps "${specifier}" again`);
      }
    }
    for (const specifier of Object.keys(root.imports)) {
      if (typesOnly(specifier)) continue;
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

// On Deno the first `node:` module or CommonJS package starts Node's compatibility layer, a cost
// every cold start would pay; the site's routes, the request validators and the booking's and
// MCP's libraries are needed by their first request only, and the router compiles the patterned
// paths with the first request that needs them. What start-up loads is kept to ES modules of one
// small package: the structured fields of the RateLimit headers.
test(
  "start-up loads no node: module, no CommonJS package and none of the libraries of later requests",
  { skip: RUNTIME !== "deno" && "reads the Deno module graph" },
  () => {
    // What main.ts loads before it serves: the build's check, then the service on Deno.
    const packages = new Set<string>();
    for (const entry of ["main.ts", "adapters/deno/main.ts"]) {
      const modules = listStartUpModules(entry);
      assert.deepEqual(modules.filter((specifier) => specifier.startsWith("node:")), [], entry);
      for (const name of modules.map(toPackageName)) if (name) packages.add(name);
      for (
        const later of [
          "lib/site/build_site.ts",
          "lib/booking/bookings.ts",
          "lib/contract/fields.ts",
          "lib/contract/request_structs.ts",
          "lib/site/check_corpus.ts",
          "lib/availability/read_schedule.ts",
          "routes/_mcp_server.ts",
          "routes/mcp.ts",
          "routes/content.ts",
          "routes/booking_form.ts",
          "routes/contact_form.ts",
          "routes/booking_actions.ts",
          "routes/agent_discovery.ts",
          "routes/api_reference.ts",
          "routes/discovery.ts",
          "build/corpus.generated.ts",
          "build/api_reference_bundle.generated.ts",
        ]
      ) {
        assert.ok(
          !modules.some((specifier) => specifier.endsWith(later)),
          `${entry} loads ${later}`,
        );
      }
    }
    assert.deepEqual([...packages], ["structured-headers"], "ES module packages only");
    assert.deepEqual([...START_UP_PACKAGES], [...packages], "the deployment's bundle holds those");
    // The deployment's bundle (deno task build made it) resolves no npm package before it serves.
    const bundle = listStartUpModules("build/server/main.js");
    assert.ok(bundle.some((specifier) => specifier.endsWith("/build/schedule.generated.ts")));
    assert.deepEqual(bundle.filter((specifier) => !specifier.startsWith("file:")), []);
  },
);

// A prepared page is served by routes/content.ts from the build's answers: rendering per request
// (the booking form's free times, a contact form with campaign fields) and the validators it
// needs are imported by the first page that asks for them.
test(
  "a prepared page's route loads no renderer, no form and no validation library",
  { skip: RUNTIME !== "deno" && "reads the Deno module graph" },
  () => {
    const modules = listStartUpModules("routes/content.ts");
    for (
      const later of [
        "routes/booking_form.ts",
        "lib/site/render_contact_form.ts",
        "lib/contact/first_touch.ts",
        "lib/contract/fields.ts",
        "lib/site/build_site.ts",
        "lib/site/render_markdown.ts",
        "build/corpus.generated.ts",
      ]
    ) {
      assert.ok(!modules.some((specifier) => specifier.endsWith(later)), `loads ${later}`);
    }
    assert.deepEqual(modules.filter((specifier) => specifier.startsWith("npm:")), []);
  },
);

// A fresh clone runs `deno run main.ts`, `deno serve` and Deno Deploy with no install step: no
// node_modules folder (nodeModulesDir unset), npm packages cached as the module graph reaches them
// (npm-lazy-caching), and dynamic imports loaded when they run, not at start-up.
test("deno.json runs the service without node_modules, caching and loading on first use", {
  skip: RUNTIME !== "deno" && "reads the Deno configuration",
}, () => {
  const root = JSON.parse(readFileSync(`${ROOT}deno.json`, "utf8"));
  assert.equal(root.nodeModulesDir, undefined);
  assert.deepEqual(root.workspace, ["./tests", "./scripts"]);
  for (const feature of ["kv", "lazy-dynamic-imports", "npm-lazy-caching"]) {
    assert.ok(root.unstable.includes(feature), feature);
  }
});
