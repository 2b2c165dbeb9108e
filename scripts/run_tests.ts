/**
 * Brings `build/` up to date (`deno task build`: quick when nothing changed, and what a fresh
 * clone lacks) and the fixture studios the tests serve instead of `content/`, in `tests/.build/`
 * (scripts/_fixture_studios.ts), then runs the whole test suite under Deno — every test under
 * `tests/` and every `@example` of the library's modules (`deno test --doc`), which assert what
 * they show — and prints a closing `N passed, N failed` line that CI reads as the count. Exits
 * with the test runner's status.
 *
 * Usage: `deno task test` (extra arguments go to `deno test`).
 *
 * @module
 */
import { runBuild } from "./build.ts";
import { buildFixtureStudios } from "./_fixture_studios.ts";

/** The modules whose `@example` blocks run as tests besides `tests/`. */
const DOC_SOURCES = ["mod.ts", "compose/", "testing.ts", "lib/"];

if (!await runBuild()) {
  console.error("deno task build failed: the tests need build/");
  console.log("\n0 passed, 1 failed");
  Deno.exit(1);
}
if (!await buildFixtureStudios()) {
  console.error("The fixture studios failed to build: the tests need tests/.build/");
  console.log("\n0 passed, 1 failed");
  Deno.exit(1);
}

// deno test type-checks every module before the first test runs (half a minute here): say so.
console.log(
  `deno test: type-checking tests/ and ${DOC_SOURCES.join(", ")} first, then running the tests`,
);
const command = new Deno.Command(Deno.execPath(), {
  args: ["test", "--allow-all", "--doc", ...Deno.args, "tests/", ...DOC_SOURCES],
  stdout: "piped",
  stderr: "inherit",
  env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
});
const child = command.spawn();
const decoder = new TextDecoder();
let tail = "";
for await (const chunk of child.stdout) {
  await Deno.stdout.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
}
const status = await child.status;
const summary = /(ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/.exec(tail);
const passed = summary ? Number(summary[2]) : 0;
const failed = summary ? Number(summary[3]) : status.success ? 0 : 1;
console.log(`\n${passed} passed, ${failed} failed`);
if (passed === 0) {
  console.error("No test ran");
  Deno.exit(1);
}
Deno.exit(status.code);
