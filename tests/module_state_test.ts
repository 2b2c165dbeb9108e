/**
 * No module-level mutable state in lib/, routes/, adapters/ and compose/ (docs/style.md: caches live in the
 * closure of the factory that owns them), so two handlers in one process share nothing. Each
 * module is parsed with the TypeScript compiler; a top-level `let` or `var`, or a top-level
 * `const` holding a new Map, Set, WeakMap or WeakSet, fails — unless the constant is typed
 * `ReadonlyMap` or `ReadonlySet`, a lookup table built once.
 *
 * One helper loads a module on first use (docs/style.md): every `import()` is inside the loader given
 * to a `loadOnce(...)` (which retries after a failure), and that loader is made by a factory, not
 * at the top of a module, where it would be state shared by every handler; a hand-written
 * `x ??= promise` cache, which keeps a failure for good, fails too.
 */
import { test } from "node:test";
import { RUNTIME } from "./_kv.ts";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), ".."));

/** The suite on Node and Bun runs against the compiled package: there is no source to read. */
const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "reads the TypeScript sources (Deno run)" };
const MUTABLE_COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);

/**
 * The runtime entries among the adapters: each runs once, as its process's top, so what it
 * imports on demand (an operator's command, the host of the runtime that runs it) is no state a
 * handler shares.
 */
const RUNTIME_ENTRIES = new Set([
  "adapters/deno/main.ts",
  "adapters/deno/serve.ts",
  "adapters/node/main.ts",
  "adapters/bun/main.ts",
  "adapters/npm/cli.ts",
  "adapters/npm/mod.ts",
]);

function listModules(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return listModules(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** The module's top-level mutable bindings, as `path:line name`. */
function findModuleState(source: string, path: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const constant = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of list.declarations) {
      const initializer = declaration.initializer;
      const readOnly = declaration.type?.getText(file).startsWith("Readonly") ?? false;
      const collection = !readOnly && initializer !== undefined &&
        ts.isNewExpression(initializer) && ts.isIdentifier(initializer.expression) &&
        MUTABLE_COLLECTIONS.has(initializer.expression.text);
      if (!constant || collection) {
        const { line } = file.getLineAndCharacterOfPosition(declaration.getStart());
        found.push(`${path}:${line + 1} ${declaration.name.getText(file)}`);
      }
    }
  }
  return found;
}

/** Whether `node` is a call of the function named `name` (`name(...)`, not `a.name(...)`). */
function isCallOf(node: ts.Node, name: string): node is ts.CallExpression {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) &&
    node.expression.text === name;
}

/** Whether `node` is a dynamic `import(...)`. */
function isDynamicImport(node: ts.Node): node is ts.CallExpression {
  return ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword;
}

/** Whether `node` lies in the first argument of a `loadOnce(...)` call. */
function isInLoader(node: ts.Node): boolean {
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (isCallOf(parent, "loadOnce") && parent.arguments[0] === child) return true;
  }
  return false;
}

/** Whether `node` contains an `import(...)` or a `.then(...)` call. */
function makesPromise(node: ts.Node): boolean {
  const then = ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
    node.expression.name.text === "then";
  return then || isDynamicImport(node) || (ts.forEachChild(node, makesPromise) ?? false);
}

/**
 * The module's breaks of the loading rules, as `path:line what`: a `loadOnce(...)` or `once(...)`
 * called at its top level, an `import()` outside a `loadOnce(...)` loader, and a `??=` that keeps
 * a promise (its right-hand side imports or calls `.then`).
 */
function findLoadingOutsideLoadOnce(source: string, path: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${path}:${line + 1} ${what}`);
  };
  const visit = (node: ts.Node, topLevel: boolean): void => {
    if (topLevel && (isCallOf(node, "loadOnce") || isCallOf(node, "once"))) {
      report(node, `${node.expression.getText(file)}() at the top level`);
    }
    if (isDynamicImport(node) && !isInLoader(node)) {
      report(node, `${node.getText(file)} outside loadOnce()`);
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionEqualsToken &&
      makesPromise(node.right)
    ) {
      report(node, `${node.left.getText(file)} ??= a promise`);
    }
    // A function's body runs when it is called, not when the module loads.
    const inside = topLevel && !ts.isFunctionLike(node) && !ts.isClassStaticBlockDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  ts.forEachChild(file, (child) => visit(child, true));
  return found;
}

test(
  "modules of lib/, routes/, adapters/ and compose/ keep no mutable state at their top level",
  SOURCE_ONLY,
  () => {
    const modules = ["lib", "routes", "adapters", "compose"].flatMap(listModules);
    assert.ok(modules.length > 60, `only ${modules.length} modules read`);
    const found = modules.flatMap((path) =>
      findModuleState(readFileSync(join(ROOT, path), "utf8"), path)
    );
    assert.deepEqual(found, []);
  },
);

test(
  "every import() of lib/, routes/ and adapters/ (but the runtime entries) is in a loadOnce() loader that a factory makes",
  SOURCE_ONLY,
  () => {
    const modules = ["lib", "routes", "adapters"].flatMap(listModules)
      .filter((path) => !RUNTIME_ENTRIES.has(path));
    const found = modules.flatMap((path) =>
      findLoadingOutsideLoadOnce(readFileSync(join(ROOT, path), "utf8"), path)
    );
    assert.deepEqual(found, []);
  },
);

test("the module-state check finds a top-level let and a top-level new Map", SOURCE_ONLY, () => {
  const source = [
    "let last = 0;",
    "var old = 1;",
    "const cache = new Map<string, number>();",
    "const FIXED = Object.freeze({ a: 1 });",
    "const NAMES: ReadonlySet<string> = new Set(['a']);",
    "export function make() { let inside = 0; return inside; }",
  ].join("\n");
  assert.deepEqual(findModuleState(source, "probe.ts"), [
    "probe.ts:1 last",
    "probe.ts:2 old",
    "probe.ts:3 cache",
  ]);
});

test(
  "the loading check finds a top-level loader, a stray import() and a ??= promise",
  SOURCE_ONLY,
  () => {
    const source = [
      'import { loadOnce, once } from "./load_once.ts";',
      'const loadCookie = loadOnce(() => import("cookie"));',
      "export const table = once(() => new Map());",
      "export async function parse() {",
      '  return (await import("cookie")).parse("a=b");',
      "}",
      "export function createReader(open: () => Promise<string>) {",
      '  const load = loadOnce(async () => (await import("cookie")).parse("a=b"));',
      "  const opened = loadOnce(open);",
      "  let key: Promise<string> | undefined;",
      "  const read = () => key ??= open().then((text) => text.trim());",
      "  let cached: string | undefined;",
      "  const name = () => cached ??= 'fixed';",
      "  return { load, opened, read, name };",
      "}",
    ].join("\n");
    assert.deepEqual(findLoadingOutsideLoadOnce(source, "probe.ts"), [
      "probe.ts:2 loadOnce() at the top level",
      "probe.ts:3 once() at the top level",
      'probe.ts:5 import("cookie") outside loadOnce()',
      "probe.ts:11 key ??= a promise",
    ]);
  },
);
