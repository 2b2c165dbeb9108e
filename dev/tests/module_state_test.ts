/**
 * No module-level mutable state in lib/, routes/ and adapters/ (STYLE.md: caches live in the
 * closure of the factory that owns them), so two handlers in one process share nothing. Each
 * module is parsed with the TypeScript compiler; a top-level `let` or `var`, or a top-level
 * `const` holding a new Map, Set, WeakMap or WeakSet, fails — unless the constant is typed
 * `ReadonlyMap` or `ReadonlySet`, a lookup table built once.
 */
import { test } from "node:test";
import { RUNTIME } from "./_kv.ts";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "..", ".."));

/** The suite on Node and Bun runs against the compiled package: there is no source to read. */
const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "reads the TypeScript sources (Deno run)" };
const MUTABLE_COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);

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

test(
  "modules of lib/, routes/ and adapters/ keep no mutable state at their top level",
  SOURCE_ONLY,
  () => {
    const modules = ["lib", "routes", "adapters"].flatMap(listModules);
    assert.ok(modules.length > 60, `only ${modules.length} modules read`);
    const found = modules.flatMap((path) =>
      findModuleState(readFileSync(join(ROOT, path), "utf8"), path)
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
