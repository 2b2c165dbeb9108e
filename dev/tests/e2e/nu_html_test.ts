/**
 * The Nu HTML Checker (npm `vnu-jar`, run with Debian's Java) on every page of both languages,
 * a 404 page, the booking form and the forms' answers to a refused post, as the real server
 * answers them: no error and no warning.
 */
import { WEBMCP_NU_FILTER } from "../../../lib/site/webmcp.ts";
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startServer } from "./_server.ts";
import { CORPUS } from "../../../build/corpus.generated.ts";

const VNU = "vnu-jar@26.9.27";
const javaMissing = spawnSync("java", ["-version"]).status !== 0;
// CI installs Java (.ci/run): there the check must run.
assert.ok(
  !(javaMissing && process.env.CI),
  "java is missing: apt-get install default-jre-headless",
);

const folder = mkdtempSync(join(tmpdir(), "studio-nu-"));
const server = javaMissing ? undefined : await startServer({
  STUDIO_BASE_URL: "http://127.0.0.1",
  STUDIO_KV_PATH: join(folder, "nu.kv"),
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: "inbox@studio.example",
});

after(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

test(
  "Every page passes the Nu HTML Checker with no error and no warning",
  { skip: javaMissing ? "java is not installed" : false },
  async () => {
    const paths = [...CORPUS.pages.map((page) => page.path), "/en/no-such-page"];
    const files: string[] = [];
    for (const [index, path] of paths.entries()) {
      const file = join(folder, `page-${index}.html`);
      writeFileSync(file, await (await fetch(server?.origin + path)).text());
      files.push(file);
    }
    // The forms' answers to a refused post, the page again with a notice and what was typed: a
    // foreign Origin (403), and an e-mail address missing (400).
    for (const path of ["/contacto", "/en/contact", "/marcar-conversa", "/en/book"]) {
      for (const origin of ["https://elsewhere.example", server?.origin ?? ""]) {
        const body = new URLSearchParams({
          Name: 'Zé "Ana" <b>',
          Message: "Uma marca <nova> & já",
          start: "2026-12-02T09:30:00Z",
          name: 'Zé "Ana" <b>',
          topic: "Uma marca <nova> & já",
        });
        const response = await fetch(server?.origin + path, {
          method: "POST",
          headers: { Origin: origin },
          body,
        });
        const file = join(folder, `page-${paths.length}.html`);
        paths.push(`POST ${path} (${response.status})`);
        writeFileSync(file, await response.text());
        files.push(file);
      }
    }
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
    ], {
      encoding: "utf8",
      timeout: 240_000,
    });
    const { messages } = JSON.parse(run.stderr || run.stdout) as {
      messages: Array<{ type: string; subType?: string; message: string; url: string }>;
    };
    const found = messages
      .filter((message) => message.type === "error" || message.subType === "warning")
      .map((message) =>
        `${paths[Number(/page-(\d+)\.html/.exec(message.url)?.[1])]}: ${message.message}`
      );
    assert.deepEqual(found, [], found.join("\n"));
  },
);
