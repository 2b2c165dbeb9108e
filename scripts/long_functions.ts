/**
 * Lists the functions of lib/ and routes/ longer than a reader can hold (docs/style.md, "Functions a
 * reader can hold"), longest first, as `lines  name  file:line`.
 *
 * Usage: `deno task lint:functions` (lib/, routes/, adapters/ and compose/; part of `deno task ok`),
 * or `deno run --allow-read --allow-env scripts/long_functions.ts [--max-lines=80] [folder or file…]`; exits 1
 * when one is found, so it can serve as a check.
 *
 * @module
 */
import ts from "typescript";

/** One function over the limit. */
export interface LongFunction {
  name: string;
  file: string;
  line: number;
  lines: number;
}

/** The name a reader would look for: the declaration's, or the binding's it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) {
    return `(argument of ${parent.expression.getText(source).slice(0, 40)})`;
  }
  return "(anonymous)";
}

/** The functions of one source text longer than `maxLines`, counted from first to last line. */
export function findLongFunctions(
  file: string,
  text: string,
  maxLines: number,
): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxLines) {
        found.push({
          name: nameOf(node as ts.FunctionLikeDeclaration, source),
          file,
          line: start + 1,
          lines,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

async function* walk(folder: string): AsyncGenerator<string> {
  if ((await Deno.stat(folder)).isFile) {
    yield folder;
    return;
  }
  for await (const entry of Deno.readDir(folder)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts")) yield path;
  }
}

if (import.meta.main) {
  const limitArgument = Deno.args.find((argument) => argument.startsWith("--max-lines="));
  const maxLines = limitArgument ? Number(limitArgument.slice("--max-lines=".length)) : 80;
  const folders = Deno.args.filter((argument) => !argument.startsWith("--"));
  const found: LongFunction[] = [];
  for (const folder of folders.length > 0 ? folders : ["lib", "routes"]) {
    for await (const file of walk(folder)) {
      found.push(...findLongFunctions(file, await Deno.readTextFile(file), maxLines));
    }
  }
  found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  for (const { name, file, line, lines } of found) {
    console.log(`${String(lines).padStart(4)}  ${name}  ${file}:${line}`);
  }
  console.log(`${found.length} function(s) over ${maxLines} lines`);
  if (found.length > 0) Deno.exitCode = 1;
}
