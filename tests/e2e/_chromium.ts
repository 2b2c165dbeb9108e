/**
 * Debian's Chromium for the browser tests that start their own page (playwright-core cannot
 * download browsers here). Under CI it must be installed (`.ci/run` does); elsewhere the tests
 * that need it skip. Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** The `skip` of a test that needs Chromium: false where it is installed, else the reason. */
export const CHROMIUM_SKIP: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed`;
assert.ok(!(CHROMIUM_SKIP && process.env.CI), `${CHROMIUM} is missing: apt-get install chromium`);

/**
 * Launches headless Chromium.
 *
 * @param args Flags besides `--no-sandbox --headless=new`, e.g. `--enable-features=WebMCPTesting`.
 */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless=new", ...args],
  });
}
