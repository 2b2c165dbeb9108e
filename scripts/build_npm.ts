/**
 * Builds the npm package into `npm/`: ESM JavaScript and `.d.ts` of the library entry (`npm.ts`:
 * `mod.ts` plus the Temporal polyfill where missing), the runtime-neutral composition (`app.ts`),
 * the test doubles (`testing.ts`), the adapters and the Node and Bun entries with the executable
 * (`cli.ts`), compiled by TypeScript's `tsc` with `rewriteRelativeImportExtensions`; a
 * `package.json` generated from deno.json whose dependencies are exactly the packages the emitted
 * files import; the README and the licence. With `--tests`, also compiles `tests/` into
 * `npm-tests/`, where every module of the package is a link to its file in `npm/`, so that the
 * suite runs on Node and Bun against the built package (see scripts/test_npm.ts).
 *
 * Usage: `deno task build:npm [--tests]`
 *
 * @module
 */
import ts from "typescript";
import { runBuild } from "./build.ts";
import { buildFixtureStudios } from "./_fixture_studios.ts";
import { SERVICE_NAME } from "../lib/contract/contract.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const OUT = `${ROOT}npm/`;
const TESTS_OUT = `${ROOT}npm-tests/`;

/** The entry points compiled into the package; their import graphs come along. */
const ENTRIES = [
  "adapters/npm/mod.ts",
  "mod.ts",
  "compose/create_app.ts",
  "testing.ts",
  "adapters/node/main.ts",
  "adapters/bun/main.ts",
  "adapters/npm/cli.ts",
  "build/corpus.generated.ts",
  "build/api_types.generated.ts",
];

/** The package's public entry points: subpath → compiled module. */
const EXPORTS: Record<string, string> = {
  ".": "./adapters/npm/mod",
  "./app": "./compose/create_app",
  "./testing": "./testing",
  "./node-kv": "./adapters/node/node_kv",
  "./smtp-mailer": "./adapters/smtp_mailer",
  "./corpus": "./build/corpus.generated",
  "./api-types": "./build/api_types.generated",
};

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2024.d.ts", "lib.esnext.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: ["node"],
  typeRoots: [`${ROOT}node_modules/@types`],
  strict: true,
  skipLibCheck: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  rewriteRelativeImportExtensions: true,
  allowImportingTsExtensions: false,
  declaration: true,
  rootDir: ROOT,
  outDir: OUT,
  newLine: ts.NewLineKind.LineFeed,
  removeComments: false,
};

interface DenoJson {
  name: string;
  version: string;
  license?: string;
  description?: string;
  repository?: string | { type: string; url: string };
  imports: Record<string, string>;
}

/** Compiles `files` with `options`; prints diagnostics and exits 1 on an error. */
function compile(files: string[], options: ts.CompilerOptions): void {
  const program = ts.createProgram(files.map((file) => `${ROOT}${file}`), options);
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  const errors = diagnostics.filter((item) => item.category === ts.DiagnosticCategory.Error);
  if (diagnostics.length) {
    console.error(ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => "\n",
    }));
  }
  if (errors.length || result.emitSkipped) {
    console.error(`tsc: ${errors.length} error(s)`);
    Deno.exit(1);
  }
}

async function* walk(folder: string, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(folder)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) yield* walk(`${folder}${entry.name}/`, `${path}/`);
    else yield path;
  }
}

/** The package name of a bare specifier: `@scope/name/sub` → `@scope/name`. */
function toPackageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Bare specifiers that a compiled module imports (static, dynamic and re-exports). */
function readBareImports(code: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s*(?:[^"'`;]*?\sfrom\s*)?["']([^"'./][^"']*)["']|import\(\s*["']([^"'./][^"']*)["']\s*\)/gm;
  for (const match of code.matchAll(pattern)) found.push(match[1] ?? match[2]);
  return found.filter((specifier) => !specifier.startsWith("node:"));
}

/** The version deno.json pins for a package (`npm:name@version`). */
function readVersion(config: DenoJson, name: string): string {
  const target = config.imports[name] ??
    Object.values(config.imports).find((value) => value.startsWith(`npm:${name}@`));
  // `npm:name@version` or `npm:name@version/sub/path` (superstruct's ESM entry, see deno.json).
  const version = target?.match(/^npm:(?:@[^/@]+\/)?[^@/]+@([^/]+)/)?.[1];
  if (!version) {
    console.error(`deno.json pins no npm version of "${name}", which the build imports`);
    Deno.exit(1);
  }
  return version;
}

async function readRepository(config: DenoJson): Promise<DenoJson["repository"]> {
  if (config.repository) return config.repository;
  try {
    const { stdout, success } = await new Deno.Command("git", {
      args: ["remote", "get-url", "origin"],
      cwd: ROOT,
      stderr: "null",
    }).output();
    const url = new TextDecoder().decode(stdout).trim();
    // Only a URL another machine can reach: a clone's origin may be a local path.
    if (success && /^(?:git\+)?(?:https?|ssh|git):\/\//.test(url)) {
      return { type: "git", url: url.startsWith("git+") ? url : `git+${url}` };
    }
  } catch { /* no git */ }
  return undefined;
}

async function buildPackage(): Promise<void> {
  // tsc resolves packages and their types in node_modules/, which the service itself runs without
  // (deno.json sets no nodeModulesDir): install them there for this build, and for the Node and
  // Bun runs that resolve the package's dependencies from it.
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--node-modules-dir=auto"],
    cwd: ROOT,
  }).output();
  if (!install.success) {
    console.error(new TextDecoder().decode(install.stderr));
    Deno.exit(1);
  }
  const config: DenoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  compile(ENTRIES, COMPILER_OPTIONS);

  const dependencies = new Map<string, string>();
  for await (const file of walk(OUT)) {
    if (!file.endsWith(".js") && !file.endsWith(".d.ts")) continue;
    let code = await Deno.readTextFile(`${OUT}${file}`);
    if (file.endsWith(".d.ts")) {
      // tsc rewrites `.ts` to `.js` in JavaScript only; declarations get the same specifiers.
      code = code.replace(/((?:from|import)\s*\(?\s*["']\.\.?\/[^"']*)\.ts(["'])/g, "$1.js$2");
      // The types name `Temporal`: TypeScript 6 has it as a lib, loaded here for every consumer.
      if (file === "adapters/npm/mod.d.ts" || file === "testing.d.ts") {
        code = `/// <reference lib="esnext.temporal" />\n${code}`;
      }
      await Deno.writeTextFile(`${OUT}${file}`, code);
    }
    for (const specifier of readBareImports(code)) {
      const name = toPackageName(specifier);
      dependencies.set(name, readVersion(config, name));
    }
  }
  // The build's binary files (pictures, cards, the font, icons), which build/files.generated.ts
  // reads beside it; their keys stay behind (they serve the build only).
  await Deno.mkdir(`${OUT}build/files/`, { recursive: true });
  for await (const entry of Deno.readDir(`${ROOT}build/files/`)) {
    if (!entry.isFile || entry.name.endsWith(".key")) continue;
    await Deno.copyFile(`${ROOT}build/files/${entry.name}`, `${OUT}build/files/${entry.name}`);
  }
  await Deno.chmod(`${OUT}adapters/npm/cli.js`, 0o755);
  for (const file of ["README.md", "LICENSE"]) {
    await Deno.copyFile(`${ROOT}${file}`, `${OUT}${file}`);
  }

  const exports = Object.fromEntries(
    Object.entries(EXPORTS).map(([subpath, module]) => [subpath, {
      types: `${module}.d.ts`,
      default: `${module}.js`,
    }]),
  );
  const packageJson = {
    name: config.name,
    version: config.version,
    description: config.description ??
      "A design studio's website and JSON API v1 as one fetch handler, for Deno, Node and Bun",
    license: config.license,
    repository: await readRepository(config),
    type: "module",
    exports,
    types: "./adapters/npm/mod.d.ts",
    bin: { [SERVICE_NAME]: "./adapters/npm/cli.js" },
    engines: { node: ">=20" },
    dependencies: Object.fromEntries([...dependencies].sort(([a], [b]) => a.localeCompare(b))),
  };
  await Deno.writeTextFile(`${OUT}package.json`, JSON.stringify(packageJson, null, 2) + "\n");
  console.log(
    `npm/: ${config.name}@${config.version} with ${dependencies.size} dependencies: ${
      [...dependencies.keys()].join(", ")
    }`,
  );
}

/**
 * Compiles tests/ into npm-tests/tests/ and makes every other compiled module a link to the
 * package's file of the same path, so the tests exercise the built package. Modules the package
 * does not hold (e.g. scripts/) stay compiled from source, and so do the builds of the fixture
 * studios the tests serve (tests/.build/, whose files/ are linked beside them); the content and
 * the build folder's modules, which tests read as files, are linked from the repository (the
 * service's browser files, `lib/site/browser/` and `lib/site/style/`, with them).
 */
async function buildTests(): Promise<void> {
  await Deno.remove(TESTS_OUT, { recursive: true }).catch(() => {});
  const tests: string[] = [];
  for await (const file of walk(`${ROOT}tests/`, "tests/")) {
    if (file.endsWith(".ts")) tests.push(file);
  }
  // Type-checked by `deno check`; here only transpiled (tests may use Deno where they run on it).
  compile(tests, { ...COMPILER_OPTIONS, outDir: TESTS_OUT, declaration: false, noCheck: true });
  for await (const file of walk(TESTS_OUT)) {
    if (file.startsWith("tests/")) continue;
    try {
      await Deno.stat(`${OUT}${file}`);
    } catch {
      continue; // Not part of the package: keep the compiled copy.
    }
    await Deno.remove(`${TESTS_OUT}${file}`);
    await Deno.symlink(`${OUT}${file}`, `${TESTS_OUT}${file}`);
  }
  for await (const file of walk(OUT)) await linkIfAbsent(file, OUT);
  for await (const file of walk(`${ROOT}tests/`, "tests/")) {
    if (!file.endsWith(".ts")) await linkIfAbsent(file, ROOT);
  }
  // The sources the tests read as files: content/, the service's browser files (which the
  // content's build reads), and build/'s modules (the freshness tests).
  for (const folder of ["content/", "lib/site/browser/", "lib/site/style/", "build/"]) {
    for await (const file of walk(`${ROOT}${folder}`, folder)) await linkIfAbsent(file, ROOT);
  }
  for (const config of ["deno.json", "tests/deno.json", "scripts/deno.json"]) {
    await linkIfAbsent(config, ROOT);
  }
  console.log(`npm-tests/: ${tests.length} test modules against npm/`);
}

/** Links `npm-tests/<file>` to `<from><file>` unless the compile already put a file there. */
async function linkIfAbsent(file: string, from: string): Promise<void> {
  const target = `${TESTS_OUT}${file}`;
  try {
    await Deno.lstat(target);
    return;
  } catch { /* absent */ }
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  await Deno.symlink(`${from}${file}`, target);
}

// The package compiles build/'s modules with the sources: bring them up to date first.
if (!await runBuild()) Deno.exit(1);
await buildPackage();
if (Deno.args.includes("--tests")) {
  // The tests import the fixture studios' builds (tests/.build/), compiled with them.
  if (!await buildFixtureStudios()) Deno.exit(1);
  await buildTests();
}
