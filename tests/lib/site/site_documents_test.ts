import { test } from "node:test";
import assert from "node:assert/strict";
import { buildSite } from "../../../lib/site/build_site.ts";
import { createPrebuiltDocuments, PREBUILT_BASE_URL } from "../../../lib/site/site_documents.ts";
import type { Representation } from "../../../lib/http/representation.ts";
import { SAMPLE_STUDIO, SOL_STUDIO } from "../../_fixture_studio.ts";

/** The site the sample fixture studio's build prepared (tests/.build/sample/site/). */
const PREBUILT_SITE = await SAMPLE_STUDIO.loadPrebuilt();

/** An origin unlike the build's, with a port and a longer name, so that lengths change too. */
const BASE = "https://atelier-norte.example:8443";

/**
 * The same body and headers. The entity tags of the texts the build prepared are derived from
 * the build's tag and the origin (see `fillPrebuiltText`), not from the bytes: `sameTag` is
 * false for those, and their tags are checked by the test below.
 */
function assertSame(
  actual: Representation,
  expected: Representation,
  label: string,
  sameTag = false,
) {
  assert.equal(
    new TextDecoder().decode(actual.body),
    new TextDecoder().decode(expected.body),
    label,
  );
  if (sameTag) assert.equal(actual.etag, expected.etag, label);
  const withoutTag = (headers: Representation["headers"]) =>
    headers.filter(([name]) => name !== "ETag");
  assert.deepEqual(withoutTag(actual.headers), withoutTag(expected.headers), label);
  assert.deepEqual(actual.headers.find(([name]) => name === "ETag"), ["ETag", actual.etag], label);
}

test("createPrebuiltDocuments() answers what buildSite() builds for the same origin, byte for byte, for either fixture studio", async () => {
  for (const studio of [SAMPLE_STUDIO, SOL_STUDIO]) {
    const built = buildSite(studio.content, BASE);
    const prebuilt = createPrebuiltDocuments(studio.loadPrebuilt, BASE);
    for (const [path, entry] of built.pages) {
      const answers = await prebuilt.page(path);
      assert.ok(answers, path);
      assertSame(answers.html, entry.html, `${path} as HTML`);
      assertSame(answers.markdown, entry.markdown, `${path} as Markdown`);
      assert.ok(!new TextDecoder().decode(answers.html.body).includes(PREBUILT_BASE_URL), path);
    }
    assert.equal(await prebuilt.page("/no-such-page"), undefined);
    for (const language of ["pt", "en"] as const) {
      const notFound = await prebuilt.notFound(language);
      assertSame(notFound.html, built.notFound[language].html, `404 ${language}`);
      assertSame(notFound.markdown, built.notFound[language].markdown, `404 ${language} Markdown`);
      assertSame(await prebuilt.llms(language), built.llms[language], `llms.txt ${language}`);
    }
    assertSame(await prebuilt.llmsFull(), built.llmsFull, "llms-full.txt");
    assertSame(await prebuilt.robots(), built.robots, "robots.txt");
    assertSame(await prebuilt.sitemap(), await built.sitemap(), "sitemap.xml");
    for (const [name, asset] of built.assets) {
      const answer = await prebuilt.asset(name);
      assert.ok(answer, name);
      assert.equal(answer.version, asset.version, name);
      assertSame(answer.current, asset.current, name, true);
      assertSame(answer.pinned, asset.pinned, `${name} pinned`, true);
    }
    for (const [name, file] of built.files) {
      const answer = await prebuilt.asset(name);
      assert.ok(answer, name);
      assertSame(answer.current, (await file.load()).current, name, true);
    }
    assert.equal(await prebuilt.asset("no-such-file.css"), undefined);
  }
});

test("a prepared text's entity tag names its body: one per origin and per text, the same every time", async () => {
  const tagsOf = async (baseUrl: string) => {
    const prebuilt = createPrebuiltDocuments(() => Promise.resolve(PREBUILT_SITE), baseUrl);
    const tags: string[] = [];
    for (const path of Object.keys(PREBUILT_SITE.pages)) {
      const answers = await prebuilt.page(path);
      assert.ok(answers, path);
      tags.push(answers.html.etag, answers.markdown.etag);
    }
    tags.push((await prebuilt.sitemap()).etag, (await prebuilt.llmsFull()).etag);
    return tags;
  };
  const tags = await tagsOf(BASE);
  for (const tag of tags) assert.match(tag, /^"[0-9a-f]{16}"$/);
  assert.equal(new Set(tags).size, tags.length, "every text has a tag of its own");
  assert.deepEqual(await tagsOf(BASE), tags, "the same origin gives the same tags");
  const other = await tagsOf("https://atelier-sul.example");
  assert.ok(other.every((tag, index) => tag !== tags[index]), "another origin, other tags");
});

test("createPrebuiltDocuments() imports a page's module on its first request only, and keeps it", async () => {
  const imported: string[] = [];
  const pages = Object.fromEntries(
    Object.entries(PREBUILT_SITE.pages).map(([path, load]) => [path, () => {
      imported.push(path);
      return load();
    }]),
  );
  const prebuilt = createPrebuiltDocuments(
    () => Promise.resolve({ ...PREBUILT_SITE, pages }),
    BASE,
  );
  assert.deepEqual(imported, []);
  const first = await prebuilt.page("/en");
  const again = await prebuilt.page("/en");
  assert.equal(first, again);
  assert.deepEqual(imported, ["/en"]);
});
