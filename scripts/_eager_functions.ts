/**
 * Rewrites the deployment bundle's JavaScript so that V8 compiles its functions when it compiles
 * the file, and Deno's code cache keeps them: a step of scripts/build_server.ts.
 *
 * Deno caches the code V8 compiled for a module when it first loads it, before the module runs,
 * and V8 compiles a function's body then only when the function looks called at once: a
 * parenthesized function or arrow (V8's "PIFE" heuristic). Every other function is compiled
 * again, from its source, by every process the first time it is called: for a cold start, the
 * some 200 functions of start-up and the first request, each time. Node creates its built-ins'
 * cache after they ran for this reason (nodejs/node#21567); Deno's cache has no such step. So
 * the bundle's functions are written the way V8 compiles at once, without changing what they do:
 *
 * - a top-level function declaration becomes `var name = (function name(…) {…});`, moved to the
 *   start of its file, where it is defined before any statement of the file runs, as a
 *   declaration is (hoisting). A declaration is also defined before the files it imports have
 *   run, which matters only when files import one another in a cycle: the bundle has none
 *   ({@linkcode findImportCycle}, checked by the build);
 * - a function or arrow expression is put in parentheses;
 * - an object literal's method `name(…) {…}` becomes `name: (function (…) {…})` (async and
 *   generator methods alike), unless it uses `super`. Getters, setters, class members and
 *   declarations inside functions are left as they are.
 *
 * What it buys, measured on the deployment bundle (README, Benchmarks): the first health check
 * and the first page of a cold start come some 1.5 ms sooner.
 *
 * @module
 */
import { parse } from "acorn";
import { full } from "acorn-walk";
import MagicString from "magic-string";

/** The parts of acorn's ESTree nodes this module reads. */
interface Node {
  type: string;
  start: number;
  end: number;
  body?: Node[] | Node;
  id?: Node & { name: string };
  key?: Node;
  value?: Node & { async?: boolean; generator?: boolean };
  method?: boolean;
  kind?: string;
  computed?: boolean;
  source?: { value: string };
}

/** Parses a module with acorn. */
function parseModule(code: string): Node {
  return parse(code, { ecmaVersion: "latest", sourceType: "module" }) as unknown as Node;
}

/** Calls `visit` with every node of `program`. */
function visitAll(program: Node, visit: (node: Node) => void): void {
  full(program as never, (node) => visit(node as unknown as Node));
}

/**
 * Returns `code` with its functions written to be compiled eagerly (see the module's text).
 *
 * @param code A JavaScript module (syntax acorn reads: ES2025 and earlier).
 * @returns The rewritten module: same behaviour, same exports.
 * @throws {SyntaxError} When acorn cannot parse `code`.
 */
export function compileEagerly(code: string): string {
  const program = parseModule(code);
  const edits = new MagicString(code);
  // Function values that are not plain expressions: members, accessors, methods (rewritten).
  const notExpressions = new Set<Node>();
  visitAll(program, (node) => {
    if (node.type === "MethodDefinition") notExpressions.add(node.value!);
    if (node.type !== "Property" || !(node.method || node.kind !== "init")) return;
    notExpressions.add(node.value!);
    if (node.kind === "init") toEagerMethod(code, node, edits);
  });
  visitAll(program, (node) => {
    const expression = node.type === "ArrowFunctionExpression" ||
      (node.type === "FunctionExpression" && !notExpressions.has(node));
    if (!expression) return;
    edits.appendRight(node.start, "(");
    edits.appendLeft(node.end, ")");
  });
  const statements = program.body as Node[];
  const top = statements.length ? statements[0].start : code.length;
  for (const statement of statements) {
    if (statement.type !== "FunctionDeclaration" || !statement.id) continue;
    // Attached to the declaration's own text, so that they move with it.
    edits.prependRight(statement.start, `var ${statement.id.name} = (`);
    edits.appendLeft(statement.end, ");\n");
    if (statement.start !== top) edits.move(statement.start, statement.end, top);
  }
  return edits.toString();
}

/**
 * Writes an object literal's method as a property whose value is a parenthesized function,
 * unless it uses `super` (which needs a method's home object).
 */
function toEagerMethod(code: string, property: Node, edits: MagicString): void {
  const value = property.value!;
  if (/\bsuper\b/.test(code.slice(value.start, value.end))) return;
  const key = code.slice(property.key!.start, property.key!.end);
  const keyword = `${value.async ? "async " : ""}function${value.generator ? "*" : ""}`;
  edits.overwrite(
    property.start,
    value.start,
    `${property.computed ? `[${key}]` : key}: (${keyword} `,
  );
  edits.appendLeft(value.end, ")");
}

/**
 * The names of a module's top-level function declarations: none is left in the bundle's files
 * once {@linkcode compileEagerly} rewrote them.
 *
 * @param code A JavaScript module.
 * @returns The declared names, in order.
 * @throws {SyntaxError} When acorn cannot parse `code`.
 */
export function listTopLevelDeclarations(code: string): string[] {
  return (parseModule(code).body as Node[]).flatMap((statement) =>
    statement.type === "FunctionDeclaration" && statement.id ? [statement.id.name] : []
  );
}

/**
 * A cycle among a bundle's files, by their static imports and re-exports of one another
 * (`./name.js`; dynamic imports run after the files have, and do not count).
 *
 * @param files File name (relative to the bundle's folder) → JavaScript.
 * @returns The names along a cycle, its first repeated at its end, or `undefined` when there is
 * none.
 * @throws {SyntaxError} When acorn cannot parse a file.
 */
export function findImportCycle(files: ReadonlyMap<string, string>): string[] | undefined {
  const imports = new Map<string, string[]>();
  for (const [name, code] of files) {
    const statements = parseModule(code).body as Node[];
    imports.set(
      name,
      statements.flatMap((statement) =>
        statement.source?.value.startsWith("./") ? [statement.source.value.slice(2)] : []
      ),
    );
  }
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === "done") return undefined;
    if (state.get(name) === "open") return [...path.slice(path.indexOf(name)), name];
    state.set(name, "open");
    path.push(name);
    for (const next of imports.get(name) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(name, "done");
    return undefined;
  };
  for (const name of imports.keys()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return undefined;
}
