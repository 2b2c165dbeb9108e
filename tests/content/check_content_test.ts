/**
 * The studio's own content (`content/`), checked as a whole by `deno task check:content`: the one
 * part of the suite that reads it, and it holds for any valid content, so a studio that rewrites
 * its content keeps it green; and the check itself, on broken copies of the sample fixture studio
 * (tests/fixtures/studios/sample/).
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkContent } from "../../scripts/check_content.ts";
import { fileURLToPath } from "node:url";
import { RUNTIME } from "../_kv.ts";

/** The sample studio, frozen as a fixture: the copies the check is tried on. */
const FIXTURE = fileURLToPath(new URL("../fixtures/studios/sample/", import.meta.url));

const SOURCE_ONLY = { skip: RUNTIME !== "deno" && "reads the repository's content/ (Deno run)" };

/** Copies the fixture studio into a temporary folder, changes it, and answers the check's problems. */
async function checkChanged(
  change: (folder: string) => Promise<void>,
): Promise<{ where: string; problem: string }[]> {
  const folder = await mkdtemp(join(tmpdir(), "content-check-")) + "/";
  try {
    await cp(FIXTURE, folder, { recursive: true });
    await change(folder);
    return await checkContent(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Replaces text in a file of a content folder, failing when the text is not there. */
async function replaceIn(folder: string, file: string, from: string | RegExp, to: string) {
  const text = await readFile(folder + file, "utf8");
  const changed = text.replace(from, to);
  assert.notEqual(changed, text, `${file} holds ${from}`);
  await writeFile(folder + file, changed);
}

test(
  "the studio's content is whole: builds, every page in both languages, every link answers",
  SOURCE_ONLY,
  async () => {
    assert.deepEqual(await checkContent(), []);
  },
);

test(
  "the check names a link to a page the site does not have, in the page that holds it",
  SOURCE_ONLY,
  async () => {
    const problems = await checkChanged((folder) =>
      replaceIn(folder, "en/about.md", /\n\n/, "\n\nSee [our old page](/en/old-page).\n\n")
    );
    const about = problems.filter((item) => item.where === "/en/about");
    assert.ok(about.length >= 1, JSON.stringify(problems));
    assert.ok(
      about.every((item) => /links to \/en\/old-page, which answers 404/.test(item.problem)),
    );
  },
);

test(
  "the check names an unknown placeholder, a page without its translation and a bad schedule",
  SOURCE_ONLY,
  async () => {
    const [placeholder] = await checkChanged((folder) =>
      replaceIn(folder, "en/about.md", /\n\n/, "\n\nWritten by {{founder}}.\n\n")
    );
    assert.match(placeholder.problem, /en\/about\.md: unknown placeholder "\{\{founder\}\}"/);
    assert.match(placeholder.problem, /\{\{name\}\}.*\{\{hours\}\}/, "it lists the known ones");

    const [untranslated] = await checkChanged((folder) => rm(folder + "pt/work_mare_alta.md"));
    assert.match(untranslated.problem, /"work_mare_alta" has no "pt" translation/);

    const [zone] = await checkChanged((folder) =>
      replaceIn(folder, "schedule.json", /"timeZone": "[^"]+"/, '"timeZone": "Mars/Olympus"')
    );
    assert.match(zone.problem, /schedule\.json/);
  },
);
