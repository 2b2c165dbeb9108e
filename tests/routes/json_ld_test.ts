import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler, SAMPLE_CORPUS } from "../_fixture_studio.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";

const BASE_URL = "https://studio.example";

function readJsonLd(
  html: string,
): { "@context": string; "@graph": Array<Record<string, unknown>> } {
  const blocks = [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)];
  assert.equal(blocks.length, 1, "one JSON-LD block");
  return JSON.parse(blocks[0][1]);
}

test("every page carries JSON-LD: the studio as a ProfessionalService with its ContactPoint, the page as a WebPage in its language", async () => {
  const client = createTestClient(
    createSampleHandler({ baseUrl: BASE_URL, logger: createRecordingLogger() }),
  );
  for (const page of SAMPLE_CORPUS.pages) {
    const html = await (await client.get(page.path)).text();
    const data = readJsonLd(html);
    assert.equal(data["@context"], "https://schema.org", page.path);
    const [studio, webPage] = data["@graph"];
    assert.deepEqual(studio["@type"], ["Organization", "ProfessionalService"], page.path);
    assert.equal(studio.name, SAMPLE_CORPUS.name);
    assert.equal(studio.email, SAMPLE_CORPUS.email);
    const contact = studio.contactPoint as Record<string, unknown>;
    assert.equal(contact["@type"], "ContactPoint");
    assert.equal(contact.email, SAMPLE_CORPUS.email);
    assert.equal(webPage["@type"], "WebPage");
    assert.equal(webPage.url, BASE_URL + page.path);
    assert.equal(webPage.inLanguage, SAMPLE_CORPUS.languages[page.language].tag, page.path);
    assert.equal(webPage.name, page.title);
    const action = webPage.potentialAction as Record<string, unknown> | undefined;
    if (page.layout === "booking") {
      assert.equal(action?.["@type"], "ReserveAction", page.path);
      assert.deepEqual(action?.target, {
        "@type": "EntryPoint",
        urlTemplate: `${BASE_URL}/api/v1/booking`,
        httpMethod: "POST",
        contentType: "application/json",
        encodingType: "application/json",
      });
    } else {
      assert.equal(action, undefined, page.path);
    }
  }
});

test("a page's JSON-LD cannot close its element, whatever the content says", async () => {
  // The corpus's loader of files is a function, which structuredClone refuses: it is shared.
  const { loadFiles, ...content } = SAMPLE_CORPUS;
  const corpus = { ...structuredClone(content), loadFiles };
  corpus.pages[0].title = "</script><script>alert(1)</script>";
  const client = createTestClient(
    createSampleHandler({ baseUrl: BASE_URL, content: corpus, logger: createRecordingLogger() }),
  );
  const html = await (await client.get(corpus.pages[0].path)).text();
  const data = readJsonLd(html);
  assert.equal(data["@graph"][1].name, "</script><script>alert(1)</script>");
});

test("a page asked for text/plain answers its Markdown as plain text; the home pages' Link names the MCP card, the API reference and the health", async () => {
  const client = createTestClient(
    createSampleHandler({ baseUrl: BASE_URL, logger: createRecordingLogger() }),
  );
  const text = await client.get("/en/services", { Accept: "text/plain" });
  assert.equal(text.status, 200);
  assert.equal(text.headers.get("Content-Type"), "text/plain; charset=utf-8");
  const markdown = await client.get("/en/services", { Accept: "text/markdown" });
  assert.equal(await text.text(), await markdown.text());
  for (const [home, reference] of [["/", "/referencia-api"], ["/en", "/en/api-reference"]]) {
    const link = (await client.get(home)).headers.get("Link") ?? "";
    assert.ok(
      link.includes(
        `<${BASE_URL}/mcp/server-card>; rel="service-desc"; type="application/mcp-server-card+json"`,
      ),
      link,
    );
    assert.ok(link.includes(`<${BASE_URL}${reference}>; rel="service-doc"`), link);
    assert.ok(link.includes(`<${BASE_URL}/api/v1/health>; rel="status"`), link);
  }
});
