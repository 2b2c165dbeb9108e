import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import {
  compileEagerly,
  findImportCycle,
  listTopLevelDeclarations,
} from "../../scripts/_eager_functions.ts";

/** A module written the way the bundle is: declarations used before their line, methods, classes. */
const MODULE = `
const early = twice(21);
function twice(value) { return helper(value) * 2 / 2 * 2; }
function helper(value) { return value; }
async function later(value) { return await Promise.resolve(value + 1); }
function* counted() { yield 1; yield 2; }
class Base { greet() { return "base"; } }
class Derived extends Base { greet() { return "derived of " + super.greet(); } }
const counter = {
  count: 0,
  add(step = 1) { this.count += step; return this; },
  async fetchLater() { return this.count; },
  *[Symbol.iterator]() { yield this.count; },
  get doubled() { return this.count * 2; },
  set doubled(value) { this.count = value / 2; },
};
const withSuper = { __proto__: { hello() { return "proto"; } }, hello() { return "own, " + super.hello(); } };
const arrows = [1, 2, 3].map((value) => value + 1).filter(function odd(value) { return value % 2; });
const asyncArrow = async (value) => value * 3;
export { early, twice, later, counted, Derived, counter, withSuper, arrows, asyncArrow };
`;

async function importText(code: string): Promise<Record<string, unknown>> {
  return await import(`data:text/javascript;base64,${btoa(unescape(encodeURIComponent(code)))}`);
}

async function describe(module: Record<string, unknown>) {
  interface Counter {
    add(step?: number): Counter;
    fetchLater(): Promise<number>;
    doubled: number;
    count: number;
    [Symbol.iterator](): Iterator<number>;
  }
  const counter = module.counter as Counter;
  counter.add().add(2);
  counter.doubled = 10;
  return {
    early: module.early,
    twiceName: (module.twice as () => void).name,
    later: await (module.later as (value: number) => Promise<number>)(1),
    counted: [...(module.counted as () => Iterable<number>)()],
    derived: new (module.Derived as new () => { greet(): string })().greet(),
    count: counter.count,
    fetchLater: await counter.fetchLater(),
    iterated: [...counter],
    addName: counter.add.name,
    withSuper: (module.withSuper as { hello(): string }).hello(),
    arrows: module.arrows,
    asyncArrow: await (module.asyncArrow as (value: number) => Promise<number>)(2),
  };
}

test("compileEagerly() keeps what a module does: declarations used before their line, methods with this, async and generator methods, accessors, classes, super", async () => {
  const original = await describe(await importText(MODULE));
  assert.equal(original.early, 42);
  assert.deepEqual(await describe(await importText(compileEagerly(MODULE))), original);
});

test("compileEagerly() writes the functions the way V8 compiles at once: declarations as parenthesized functions at the top, expressions and arrows parenthesized, methods as parenthesized functions unless they use super", () => {
  const eager = compileEagerly(MODULE);
  assert.deepEqual(listTopLevelDeclarations(MODULE), ["twice", "helper", "later", "counted"]);
  assert.deepEqual(listTopLevelDeclarations(eager), [], "no top-level declaration is left");
  assert.ok(eager.indexOf("var twice = (function twice(") < eager.indexOf("const early"));
  assert.match(eager, /var later = \(async function later\(value\)/);
  assert.match(eager, /var counted = \(function\* counted\(\)/);
  assert.match(eager, /add: \(function \(step = 1\)/);
  assert.match(eager, /fetchLater: \(async function \(\)/);
  assert.match(eager, /\[Symbol\.iterator\]: \(function\* \(\)/);
  assert.match(eager, /\.map\(\(\(value\) => value \+ 1\)\)/);
  assert.match(eager, /\.filter\(\(function odd\(value\)/);
  assert.match(eager, /asyncArrow = \(async \(value\) => value \* 3\)/);
  // Left as they are: accessors, class members, a method that uses super.
  assert.match(eager, /get doubled\(\) \{/);
  assert.match(eager, /class Derived extends Base \{ greet\(\) \{/);
  assert.match(eager, /hello\(\) \{ return "own, " \+ super\.hello\(\); \}/);
});

test("findImportCycle() names a cycle among a bundle's files, by their static imports only", () => {
  assert.deepEqual(
    findImportCycle(
      new Map([
        ["main.js", 'import { a } from "./chunk-a.js";\nconst later = () => import("./lazy.js");'],
        ["chunk-a.js", 'import "./chunk-b.js";\nexport const a = 1;'],
        ["chunk-b.js", 'export { a } from "./chunk-a.js";'],
        ["lazy.js", 'import { a } from "./chunk-a.js";'],
      ]),
    ),
    ["chunk-a.js", "chunk-b.js", "chunk-a.js"],
  );
  assert.equal(
    findImportCycle(
      new Map([
        ["main.js", 'import { a } from "./chunk-a.js";\nconst later = () => import("./main.js");'],
        ["chunk-a.js", "export const a = 1;"],
      ]),
    ),
    undefined,
    "a dynamic import does not count",
  );
});

test("the deployment bundle (deno task build) has no import cycle and no top-level function declaration", () => {
  const folder = new URL("../../build/server/", import.meta.url);
  const files = new Map(
    readdirSync(folder).filter((name) => name.endsWith(".js")).map((
      name,
    ) => [name, readFileSync(new URL(name, folder), "utf8")]),
  );
  assert.ok(files.has("main.js"));
  assert.equal(findImportCycle(files), undefined);
  for (const [name, code] of files) assert.deepEqual(listTopLevelDeclarations(code), [], name);
});
