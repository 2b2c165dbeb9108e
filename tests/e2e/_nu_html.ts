/**
 * The Nu HTML Checker (npm `vnu-jar`, run by npx with Debian's Java) over pages the tests
 * fetched. Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { WEBMCP_NU_FILTER } from "../../lib/site/webmcp.ts";

const VNU = "vnu-jar@26.9.27";

/** Why the checker cannot run here (no Java), or `false`; under CI it must run. */
export const NU_SKIP: string | false = spawnSync("java", ["-version"]).status === 0
  ? false
  : "java is not installed";
assert.ok(!(NU_SKIP && process.env.CI), "java is missing: apt-get install default-jre-headless");

/**
 * Checks pages with the Nu HTML Checker.
 *
 * @param pages Each page's name (for the report) and HTML.
 * @returns Its errors and warnings, each as `name: message`; empty when every page is clean.
 */
export function checkHtml(pages: ReadonlyArray<{ name: string; html: string }>): string[] {
  const folder = mkdtempSync(join(tmpdir(), "studio-nu-"));
  try {
    const files = pages.map((page, index) => {
      const file = join(folder, `page-${index}.html`);
      writeFileSync(file, page.html);
      return file;
    });
    const run = spawnSync("npx", [
      "-y",
      "-p",
      VNU,
      "vnu",
      "--format",
      "json",
      "--filterpattern",
      WEBMCP_NU_FILTER,
      ...files,
    ], { encoding: "utf8", timeout: 240_000 });
    const { messages } = JSON.parse(run.stderr || run.stdout) as {
      messages: Array<{ type: string; subType?: string; message: string; url: string }>;
    };
    return messages
      .filter((message) => message.type === "error" || message.subType === "warning")
      .map((message) =>
        `${pages[Number(/page-(\d+)\.html/.exec(message.url)?.[1])]?.name}: ${message.message}`
      );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
