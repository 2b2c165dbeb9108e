/**
 * Runs the test suite on Node or Bun against the built npm package: builds `npm/` and the
 * compiled tests in `npm-tests/` (scripts/build_npm.ts --tests), then runs every
 * `npm-tests/tests/**\/*_test.js` with `node --test` (Temporal preloaded, as Node 20 lacks it)
 * or `bun test`, and prints a closing `N passed, N failed` line. Exits non-zero when a test
 * failed or none ran.
 *
 * Usage: `deno task test:node`, `deno task test:bun` (`--no-build` reuses npm-tests/)
 *
 * @module
 */
const ROOT = new URL("../", import.meta.url).pathname;
const TESTS = `${ROOT}npm-tests/`;
const runtime = Deno.args[0];
if (runtime !== "node" && runtime !== "bun") {
  console.error("Usage: deno run -A scripts/test_npm.ts node|bun [--no-build]");
  Deno.exit(2);
}

if (!Deno.args.includes("--no-build")) {
  const build = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/build_npm.ts", "--tests"],
    cwd: ROOT,
  }).spawn().status;
  if (!build.success) Deno.exit(build.code || 1);
}

async function findTests(folder: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) found.push(...await findTests(`${folder}${entry.name}/`, `${path}/`));
    else if (entry.name.endsWith("_test.js")) found.push(path);
  }
  return found.sort();
}

const files = await findTests(`${TESTS}tests/`, "tests/");
// Node 20's `node --test dir/` finds nothing here and its globs need Node 21: list the files.
const [program, args] = runtime === "node"
  ? ["node", ["--import", "temporal-polyfill/global", "--test", "--test-reporter=tap", ...files]]
  : ["bun", ["test", "--timeout", "120000", "./tests/"]];
console.log(
  `${program} ${args.filter((arg) => !arg.endsWith("_test.js")).join(" ")} (${files.length} files)`,
);
const child = new Deno.Command(program, {
  args,
  cwd: TESTS,
  stdout: "piped",
  stderr: "piped",
  env: { NO_COLOR: "1", FORCE_COLOR: "0" },
}).spawn();

const decoder = new TextDecoder();
let output = "";
async function relay(stream: ReadableStream<Uint8Array>, write: (chunk: Uint8Array) => unknown) {
  for await (const chunk of stream) {
    await write(chunk);
    output = (output + decoder.decode(chunk, { stream: true })).slice(-65536);
  }
}
await Promise.all([
  relay(child.stdout, (chunk) => Deno.stdout.write(chunk)),
  relay(child.stderr, (chunk) => Deno.stderr.write(chunk)),
]);
const status = await child.status;

function readCount(pattern: RegExp): number {
  const matches = [...output.matchAll(pattern)];
  return matches.length ? Number(matches[matches.length - 1][1]) : 0;
}
const passed = runtime === "node" ? readCount(/^# pass (\d+)$/gm) : readCount(/^\s*(\d+) pass$/gm);
const failed = runtime === "node"
  ? readCount(/^# fail (\d+)$/gm) + readCount(/^# cancelled (\d+)$/gm)
  : readCount(/^\s*(\d+) fail$/gm);
const skipped = runtime === "node"
  ? readCount(/^# skipped (\d+)$/gm)
  : readCount(/^\s*(\d+) skip$/gm);
console.log(`\n${runtime}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0) {
  console.error(`No test ran on ${runtime}`);
  Deno.exit(1);
}
Deno.exit(failed > 0 && status.success ? 1 : status.code);
