/**
 * The Nu HTML Checker (npm `vnu-jar`, run with Debian's Java) on every page of both languages,
 * a 404 page, the booking form and the forms' answers to a refused post, as the real server
 * answers them: no error and no warning.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./_server.ts";
import { checkHtml, NU_SKIP } from "./_nu_html.ts";
import { CORPUS, pageOf } from "./_studio.ts";

const folder = mkdtempSync(join(tmpdir(), "studio-nu-"));
const server = NU_SKIP ? undefined : await startServer({
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
  { skip: NU_SKIP },
  async () => {
    const paths = [...CORPUS.pages.map((page) => page.path), "/en/no-such-page"];
    const pages = [];
    for (const path of paths) {
      pages.push({ name: path, html: await (await fetch(server?.origin + path)).text() });
    }
    // The forms' answers to a refused post, the page again with a notice and what was typed: a
    // foreign Origin (403), and an e-mail address missing (400).
    const forms = [
      pageOf("contact", "pt"),
      pageOf("contact", "en"),
      pageOf("booking", "pt"),
      pageOf("booking", "en"),
    ];
    for (const { path } of forms) {
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
        // Checked, so that a post that went through never passes another page off as this one.
        assert.equal(response.status, origin === server?.origin ? 400 : 403, `${path} ${origin}`);
        pages.push({ name: `POST ${path} (${response.status})`, html: await response.text() });
      }
    }
    const found = checkHtml(pages);
    assert.deepEqual(found, [], found.join("\n"));
  },
);
