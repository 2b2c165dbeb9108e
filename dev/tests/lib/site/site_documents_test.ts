import { test } from "node:test";
import assert from "node:assert/strict";
import { CORPUS } from "../../../../build/corpus.generated.ts";
import { PREBUILT_SITE } from "../../../../build/site/site.generated.ts";
import { buildSite } from "../../../../lib/site/build_site.ts";
import { createPrebuiltDocuments, PREBUILT_BASE_URL } from "../../../../lib/site/site_documents.ts";
import type { Representation } from "../../../../lib/http/representation.ts";

/** An origin unlike the build's, with a port and a longer name, so that lengths change too. */
const BASE = "https://atelier-norte.example:8443";

function assertSame(actual: Representation, expected: Representation, label: string) {
  assert.equal(
    new TextDecoder().decode(actual.body),
    new TextDecoder().decode(expected.body),
    label,
  );
  assert.equal(actual.etag, expected.etag, label);
  assert.deepEqual(actual.headers, expected.headers, label);
}

test("createPrebuiltDocuments() answers what buildSite() builds for the same origin, byte for byte", async () => {
  const built = buildSite(CORPUS, BASE);
  const prebuilt = createPrebuiltDocuments(() => Promise.resolve(PREBUILT_SITE), BASE);
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
    assertSame(answer.current, asset.current, name);
    assertSame(answer.pinned, asset.pinned, `${name} pinned`);
  }
  for (const [name, file] of built.files) {
    const answer = await prebuilt.asset(name);
    assert.ok(answer, name);
    assertSame(answer.current, (await file.load()).current, name);
  }
  assert.equal(await prebuilt.asset("no-such-file.css"), undefined);
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
