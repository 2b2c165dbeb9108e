import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSampleHandler, SAMPLE_CORPUS } from "../_fixture_studio.ts";
import { AI_CRAWLERS } from "../../lib/site/build_robots_txt.ts";
import { API_DOCS_PATH } from "../../lib/contract/contract.ts";
import { buildRequest } from "../_support.ts";

const BASE = "https://studio.example";
const handler = createSampleHandler({ baseUrl: BASE, rateLimits: { read: 5 } });
const SCHEMA = fileURLToPath(
  new URL("../fixtures/sitemap/sitemap_with_xhtml.xsd", import.meta.url),
);
const API_HEADERS = ["RateLimit-Policy", "RateLimit", "RateLimit-Limit", "API-Version"];
const INDEXED = SAMPLE_CORPUS.pages.filter((page) => page.indexed);

/** Fetches a path of the site and reads the whole body. */
async function get(
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ response: Response; body: string }> {
  const response = await handler(buildRequest(path, { method, headers }));
  return { response, body: await response.text() };
}

/** The `<loc>` of every sitemap entry, as paths. */
async function readSitemapPaths(): Promise<string[]> {
  const { body } = await get("/sitemap.xml");
  return [...body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => {
    assert.ok(match[1].startsWith(BASE), match[1]);
    return match[1].slice(BASE.length);
  });
}

function toTwinPath(path: string): string {
  return path === "/" ? "/md/" : "/md" + path;
}

test("GET of every sitemap URL answers HTML by default and its /md/ twin's bytes with Accept: text/markdown", async () => {
  const paths = await readSitemapPaths();
  assert.deepEqual(paths.toSorted(), INDEXED.map((page) => page.path).toSorted());
  for (const path of paths) {
    const html = await get(path);
    assert.equal(html.response.status, 200, path);
    assert.equal(html.response.headers.get("Content-Type"), "text/html; charset=utf-8", path);
    assert.match(html.response.headers.get("Vary") ?? "", /^Accept\b/, path);
    assert.match(html.body, /^<!doctype html>/);

    const negotiated = await handler(
      buildRequest(path, { headers: { Accept: "text/markdown" } }),
    );
    const twin = await handler(buildRequest(toTwinPath(path)));
    assert.equal(negotiated.status, 200, path);
    assert.equal(twin.status, 200, toTwinPath(path));
    const negotiatedBytes = new Uint8Array(await negotiated.arrayBuffer());
    const twinBytes = new Uint8Array(await twin.arrayBuffer());
    assert.deepEqual(negotiatedBytes, twinBytes, `${path} and its twin differ`);
    for (const response of [negotiated, twin]) {
      assert.equal(response.headers.get("Content-Type"), "text/markdown; charset=utf-8");
      assert.match(response.headers.get("Vary") ?? "", /^Accept(?:, Accept-Encoding)?$/);
      assert.equal(response.headers.get("X-Robots-Tag"), "noindex");
      const tokens = Number(response.headers.get("X-Markdown-Tokens"));
      assert.ok(Number.isInteger(tokens) && tokens > 0, `${path} X-Markdown-Tokens`);
      assert.ok(
        Math.abs(tokens - twinBytes.length / 4) < twinBytes.length / 4,
        "about 4 bytes a token",
      );
    }
    assert.equal(negotiated.headers.get("ETag"), twin.headers.get("ETag"));
    assert.notEqual(negotiated.headers.get("ETag"), html.response.headers.get("ETag"));
  }
});

test("GET /md/<path> also accepts a .md suffix and /index", async () => {
  const reference = await get("/md/servicos");
  for (const path of ["/md/servicos.md", "/md/servicos/"]) {
    const { response, body } = await get(path);
    assert.equal(response.status, 200, path);
    assert.equal(body, reference.body, path);
  }
  const home = await get("/md/");
  for (const path of ["/md", "/md/index.md", "/md/index"]) {
    const { response, body } = await get(path);
    assert.equal(response.status, 200, path);
    assert.equal(body, home.body, path);
  }
  const english = await get("/md/en");
  const englishIndex = await get("/md/en/index.md");
  assert.equal(englishIndex.body, english.body);
  assert.match(english.body, /^---\ntitle: "Design and development in Lisbon"\n/);
});

test("GET of a page negotiates by q-value: Markdown only when it is preferred", async () => {
  const cases: Array<[string | undefined, "html" | "markdown"]> = [
    [undefined, "html"],
    ["*/*", "html"],
    ["text/*", "html"],
    ["text/html", "html"],
    ["text/markdown", "markdown"],
    ["TEXT/MARKDOWN", "markdown"],
    ["text/markdown; charset=utf-8", "markdown"],
    ["text/markdown;q=0.1, text/html", "html"],
    ["text/html;q=0.5, text/markdown", "markdown"],
    ["text/markdown, */*;q=0.8", "markdown"],
    ["text/html, text/markdown", "html"],
    ["text/markdown, text/html", "markdown"],
    ["text/html;q=0, */*", "markdown"],
    ["text/html;q=0.1, text/*", "markdown"],
    ["text/markdown;q=0", "html"],
    ["application/json", "html"],
    ["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "html"],
  ];
  for (const [accept, expected] of cases) {
    const { response, body } = await get("/en/services", accept ? { Accept: accept } : {});
    assert.equal(response.status, 200, String(accept));
    const type = expected === "html" ? "text/html; charset=utf-8" : "text/markdown; charset=utf-8";
    assert.equal(response.headers.get("Content-Type"), type, `Accept: ${accept}`);
    assert.match(response.headers.get("Vary") ?? "", /^Accept(?:, Accept-Encoding)?$/);
    assert.ok(expected === "html" ? body.startsWith("<!doctype html>") : body.startsWith("---\n"));
  }
});

test("GET of a page answers 304 to If-None-Match, for HTML and Markdown alike", async () => {
  for (
    const [path, headers] of [
      ["/servicos", {}],
      ["/servicos", { Accept: "text/markdown" }],
      ["/md/en/agents", {}],
      ["/llms.txt", {}],
      ["/en/llms.txt", {}],
      ["/llms-full.txt", {}],
      ["/sitemap.xml", {}],
      ["/robots.txt", {}],
    ] as const
  ) {
    const first = await get(path, headers);
    const etag = first.response.headers.get("ETag");
    assert.match(etag ?? "", /^"[0-9a-f]{16}"$/, path);
    for (const condition of [etag ?? "", `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await get(path, { ...headers, "If-None-Match": condition });
      assert.equal(again.response.status, 304, `${path} If-None-Match: ${condition}`);
      assert.equal(again.body, "");
      assert.equal(again.response.headers.get("ETag"), etag);
      assert.equal(
        again.response.headers.get("Cache-Control"),
        first.response.headers.get("Cache-Control"),
      );
      assert.equal(again.response.headers.get("Vary"), first.response.headers.get("Vary"));
    }
    const changed = await get(path, { ...headers, "If-None-Match": '"0000000000000000"' });
    assert.equal(changed.response.status, 200, path);
    assert.equal(changed.body, first.body);
  }
});

test("GET /assets/site.css answers with its ETag, and a versioned URL may be kept a year", async () => {
  const page = await get("/");
  const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)?.[1] ?? "";
  assert.match(href, /^\/assets\/site\.css\?v=[0-9a-f]{8}$/);
  const pinned = await get(href);
  assert.equal(pinned.response.status, 200);
  assert.equal(pinned.response.headers.get("Content-Type"), "text/css; charset=utf-8");
  assert.equal(pinned.response.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
  // The stylesheet names the web font by its versioned, immutable URL.
  const font = SAMPLE_CORPUS.design?.font ?? "";
  assert.match(
    pinned.body,
    new RegExp(`url\\(/assets/${font.replace(/\./g, "\\.")}\\?v=[0-9a-f]{16}\\)`),
  );
  assert.equal(
    pinned.body.replace(/\?v=[0-9a-f]{8,16}/g, ""),
    SAMPLE_CORPUS.assets["site.css"].body,
  );
  const plain = await get("/assets/site.css", {
    "If-None-Match": pinned.response.headers.get("ETag") ?? "",
  });
  assert.equal(plain.response.status, 304);
  const missing = await get("/assets/nothing.css");
  assert.equal(missing.response.status, 404);
});

test("GET of an unknown page answers a 404 page in the path's language, HTML or Markdown", async () => {
  const cases = [
    [
      "/nao-existe",
      {},
      "pt-PT",
      "text/html",
      /<h1 id="pagina-nao-encontrada">Página não encontrada<\/h1>/,
    ],
    ["/en/missing", {}, "en", "text/html", /<h1 id="page-not-found">Page not found<\/h1>/],
    [
      "/nao-existe",
      { Accept: "text/markdown" },
      "pt-PT",
      "text/markdown",
      /^# Página não encontrada\n/,
    ],
    ["/en/missing", { Accept: "text/markdown" }, "en", "text/markdown", /^# Page not found\n/],
    ["/md/nao-existe", {}, "pt-PT", "text/markdown", /^# Página não encontrada\n/],
    ["/md/en/missing", {}, "en", "text/markdown", /^# Page not found\n/],
  ] as const;
  for (const [path, headers, language, type, pattern] of cases) {
    const { response, body } = await get(path, headers);
    assert.equal(response.status, 404, path);
    assert.equal(response.headers.get("Content-Type"), `${type}; charset=utf-8`, path);
    assert.equal(response.headers.get("Content-Language"), language, path);
    assert.match(response.headers.get("Vary") ?? "", /^Accept(?:, Accept-Encoding)?$/);
    assert.equal(response.headers.get("Cache-Control"), "no-store");
    assert.match(body, pattern, path);
    if (type === "text/html") {
      assert.match(body, new RegExp(`<html lang="${language}">`));
      assert.match(body, /<meta name="robots" content="noindex">/);
    }
    const conditional = await get(path, {
      ...headers,
      "If-None-Match": response.headers.get("ETag") ?? "*",
    });
    assert.equal(conditional.response.status, 404, "a 404 is never a 304");
  }
});

test("GET /md/ with path traversal attempts never leaks a file", async () => {
  const notFound = new Set<string>();
  for (const path of ["/md/nao-existe", "/md/en/missing", "/nao-existe", "/en/missing"]) {
    notFound.add((await get(path)).body);
  }
  const attempts = [
    "/md/../etc/passwd",
    "/md/../../../../etc/passwd",
    "/md/%2e%2e/%2e%2e/etc/passwd",
    "/md/%2E%2E/content/site.yaml",
    "/md/..%2f..%2fetc%2fpasswd",
    "/md/%2f%2f..%2f..%2fetc/passwd",
    "/md/..\\..\\etc\\passwd",
    "/md/%5c..%5c..%5cetc%5cpasswd",
    "/md/servicos%00.md",
    "/md/servicos%00",
    "/md/%00",
    "/md/en/%2e%2e/%2e%2e/deno.json",
    "/md/....//....//etc/passwd",
    "/md/content/pt/home.md",
    "/md/lib/corpus.ts",
    "/md/%252e%252e/%252e%252e/etc/passwd",
  ];
  for (const attempt of attempts) {
    const { response, body } = await get(attempt);
    assert.equal(response.status, 404, attempt);
    assert.ok(notFound.has(body), `${attempt} answers a 404 page, nothing else`);
    assert.doesNotMatch(body, /root:|"imports"|export const/, attempt);
  }
});

test("GET of a page with a trailing slash redirects to its one address", async () => {
  const { response } = await get("/servicos/?utm_source=x");
  assert.equal(response.status, 301);
  assert.equal(response.headers.get("Location"), "/servicos?utm_source=x");
});

test("GET / and /en carry Link headers to the API catalog, the OpenAPI document and llms.txt", async () => {
  for (
    const [path, headers] of [["/", {}], ["/en", {}], ["/", { Accept: "text/markdown" }]] as const
  ) {
    const { response } = await get(path, headers);
    const link = response.headers.get("Link") ?? "";
    assert.match(link, /<https:\/\/studio\.example\/\.well-known\/api-catalog>; rel="api-catalog"/);
    assert.match(
      link,
      /<https:\/\/studio\.example\/openapi\.json>; rel="service-desc"; type="application\/vnd\.oai\.openapi\+json;version=3\.1"/,
    );
    assert.match(link, /<https:\/\/studio\.example\/llms\.txt>; rel="describedby"/);
  }
  const other = await get("/servicos");
  assert.equal(other.response.headers.get("Link"), null);
});

test("GET of every page answers an accessible HTML document with its alternates", async () => {
  for (const page of SAMPLE_CORPUS.pages) {
    const { response, body } = await get(page.path);
    assert.equal(response.status, 200, page.path);
    const tag = SAMPLE_CORPUS.languages[page.language].tag;
    assert.equal(response.headers.get("Content-Language"), tag);
    assert.match(body, new RegExp(`<html lang="${tag}">`));
    assert.match(body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.ok(body.includes(`<meta name="description" content="`), page.path);
    assert.match(body, /<title>[^<]*Traço[^<]*<\/title>/);
    assert.match(body, /<a class="skip" href="#main">/);
    assert.match(body, /<main id="main" tabindex="-1">/);
    assert.equal(body.match(/<h1[ >]/g)?.length, 1, `${page.path} has one h1`);
    assert.ok(body.includes(`<link rel="canonical" href="${BASE + page.path}">`), page.path);
    assert.ok(
      body.includes(
        `<link rel="alternate" type="text/markdown" href="${BASE + toTwinPath(page.path)}"`,
      ),
      page.path,
    );
    const translation = SAMPLE_CORPUS.pages.find((item) =>
      item.id === page.id && item.language !== page.language
    );
    assert.ok(translation);
    if (page.indexed) {
      const pt = page.language === "pt" ? page : translation;
      const en = page.language === "en" ? page : translation;
      for (
        const [hreflang, path] of [["pt-PT", pt.path], ["en", en.path], ["x-default", pt.path]]
      ) {
        assert.ok(
          body.includes(`<link rel="alternate" hreflang="${hreflang}" href="${BASE + path}">`),
          `${page.path} ${hreflang}`,
        );
      }
    } else {
      assert.match(body, /<meta name="robots" content="noindex">/);
    }
    assert.ok(
      body.includes(`href="${translation.path}" hreflang=`),
      `${page.path} language switch`,
    );
    assert.equal(
      response.headers.get("Content-Security-Policy")?.includes("script-src 'self'"),
      true,
    );
    for (const name of API_HEADERS) assert.equal(response.headers.get(name), null, name);
  }
});

test("GET /en/agents, the API's service-doc, explains the API and its rules of use", async () => {
  const { response, body } = await get(API_DOCS_PATH);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  for (
    const path of ["/api/v1/booking/slots", "/api/v1/booking", "/api/v1/contact", "/openapi.json"]
  ) {
    assert.ok(body.includes(path), path);
  }
  assert.match(body, /genuine inquiries or meetings requested by the person concerned/);
  assert.match(body, /check\s+the attendee&#39;s mailbox|check the attendee's mailbox/);
  const portuguese = await get("/agentes");
  assert.equal(portuguese.response.status, 200);
  assert.match(portuguese.body, /pedidos genuínos/);
});

test("GET of pages, Markdown and documents is never rate limited", async () => {
  const client = { remoteAddr: { hostname: "198.51.100.20" } };
  for (let index = 0; index < 30; index++) {
    const path = ["/", "/md/servicos", "/llms.txt", "/sitemap.xml", "/nao-existe"][index % 5];
    const response = await handler(buildRequest(path), client);
    await response.body?.cancel();
    assert.notEqual(response.status, 429, path);
    assert.equal(response.headers.get("RateLimit"), null);
  }
  const api = await handler(buildRequest("/api/v1/health"), client);
  await api.body?.cancel();
  assert.equal(api.status, 200, "the site's requests did not count against the read quota");
});

test("HEAD of a page answers its headers without a body", async () => {
  const { response, body } = await get("/en/work", {}, "HEAD");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.ok(response.headers.get("ETag"));
  assert.equal(body, "");
});

test("POST to a page without a form answers 405 with Allow, as a page", async () => {
  const { response, body } = await get("/en/services", {}, "POST");
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("Allow"), "GET, HEAD");
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.match(body, /<html lang="en">/);
  assert.match(body, /Request not supported/);
});

/** Splits llms.txt into its parts and checks the llmstxt.org structure. */
function parseLlmsTxt(text: string): { links: string[]; sections: string[] } {
  const lines = text.split("\n");
  assert.match(lines[0], /^# \S/, "an H1 first");
  assert.equal(lines[1], "");
  assert.match(lines[2], /^> \S/, "then a blockquote summary");
  const firstSection = lines.findIndex((line) => line.startsWith("## "));
  assert.ok(firstSection > 3);
  for (const line of lines.slice(3, firstSection)) {
    assert.doesNotMatch(line, /^#/, "no heading before the first H2");
  }
  const sections: string[] = [];
  const links: string[] = [];
  for (const line of lines.slice(firstSection)) {
    if (line.startsWith("## ")) {
      sections.push(line.slice(3));
      continue;
    }
    if (line === "") continue;
    const match = /^- \[([^\]]+)\]\(([^)\s]+)\)(?:: .+)?$/.exec(line);
    assert.ok(match, `only link items in sections: ${line}`);
    links.push(match[2]);
  }
  const intro = lines.slice(3, firstSection).join("\n");
  for (const match of intro.matchAll(/\]\((https?:[^)\s]+)\)/g)) links.push(match[1]);
  return { links, sections };
}

test("GET /llms.txt and /en/llms.txt follow the llmstxt.org format and every link answers 200", async () => {
  for (const [path, language] of [["/llms.txt", "pt"], ["/en/llms.txt", "en"]] as const) {
    const { response, body } = await get(path);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("Content-Type"), "text/plain; charset=utf-8");
    assert.ok(body.startsWith("# Traço\n\n> "));
    const { links, sections } = parseLlmsTxt(body);
    assert.equal(sections.at(-1), "Optional");
    assert.equal(new Set(sections).size, sections.length);
    for (const page of INDEXED.filter((item) => item.language === language)) {
      assert.ok(links.includes(BASE + toTwinPath(page.path)), `${path} lists ${page.path}`);
    }
    for (
      const target of ["/openapi.json", "/api/v1", "/.well-known/api-catalog", "/llms-full.txt"]
    ) {
      assert.ok(links.includes(BASE + target), `${path} links ${target}`);
    }
    // The recipe for agents and the rules of use.
    assert.match(body, /GET https:\/\/studio\.example\/api\/v1\/booking\/slots\?month=/);
    assert.match(body, /POST https:\/\/studio\.example\/api\/v1\/booking`/);
    assert.match(body, /`409`/);
    assert.match(body, /`503`/);
    assert.match(
      body,
      language === "en" ? /genuine requests made by the person\s+concerned/ : /pedidos genuínos/,
    );
    const fresh = createSampleHandler({ baseUrl: BASE });
    for (const link of links) {
      assert.ok(link.startsWith(BASE), link);
      const target = await fresh(buildRequest(link.slice(BASE.length)));
      await target.body?.cancel();
      // Only documents are linked: the MCP endpoint, which answers POST only, is named, not linked.
      assert.equal(target.status, 200, `${path} → ${link}`);
    }
  }
});

test("GET /llms-full.txt holds every page of both languages in one outline", async () => {
  const { response, body } = await get("/llms-full.txt");
  assert.equal(response.status, 200);
  const headings = body.split("\n").filter((line) => /^#{1,6} /.test(line));
  assert.equal(headings.filter((line) => line.startsWith("# ")).length, 1, "one H1");
  assert.deepEqual(headings.filter((line) => /^## /.test(line)), ["## Português", "## English"]);
  let previous = 1;
  for (const heading of headings) {
    const level = heading.indexOf(" ");
    assert.ok(level <= previous + 1, `no level skipped at "${heading}"`);
    previous = level;
  }
  let position = 0;
  for (const page of INDEXED) {
    const h1 = /^# (.+)$/m.exec(page.markdown)?.[1] ?? "";
    const at = body.indexOf(`\n### ${h1}\n\n<${BASE + page.path}>\n`, position);
    assert.ok(at > position, `${page.language} ${page.path} in order`);
    position = at;
  }
  assert.doesNotMatch(body, /\]\(\//, "links are absolute");
  assert.doesNotMatch(
    body,
    /Obrigado, recebemos|Thank you, we received/,
    "unindexed pages left out",
  );
  assert.equal((await get("/llms-full.txt")).body, body, "stable");
});

test("GET /sitemap.xml is valid against the sitemap 0.9 schema (xmllint)", async (context) => {
  const check = spawnSync("xmllint", ["--version"]);
  if (check.error) {
    // CI installs libxml2-utils (.ci/run): there the check must run.
    assert.ok(!process.env.CI, "xmllint is missing: apt-get install libxml2-utils");
    context.skip("xmllint is not installed (apt-get install libxml2-utils)");
    return;
  }
  const { response, body } = await get("/sitemap.xml");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/xml; charset=utf-8");
  const folder = mkdtempSync(join(tmpdir(), "sitemap-"));
  try {
    const file = join(folder, "sitemap.xml");
    writeFileSync(file, body);
    const result = spawnSync("xmllint", ["--noout", "--schema", SCHEMA, file], {
      encoding: "utf8",
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /validates/);
    const broken = join(folder, "broken.xml");
    writeFileSync(broken, body.replace("<lastmod>", "<lastmod>not a date"));
    const refused = spawnSync("xmllint", ["--noout", "--schema", SCHEMA, broken], {
      encoding: "utf8",
    });
    assert.notEqual(refused.status, 0, "the schema check can fail");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("GET /sitemap.xml lists every indexed page with reciprocal pt-PT, en and x-default alternates", async () => {
  const { body } = await get("/sitemap.xml");
  const entries = [...body.matchAll(/<url>([\s\S]*?)<\/url>/g)].map((match) => match[1]);
  assert.equal(entries.length, INDEXED.length);
  const alternatesByLoc = new Map<string, Map<string, string>>();
  for (const entry of entries) {
    const loc = /<loc>([^<]+)<\/loc>/.exec(entry)?.[1] ?? "";
    assert.match(entry, /<lastmod>\d{4}-\d{2}-\d{2}<\/lastmod>/);
    const alternates = new Map(
      [...entry.matchAll(/<xhtml:link rel="alternate" hreflang="([^"]+)" href="([^"]+)" \/>/g)]
        .map((match) => [match[1], match[2]]),
    );
    assert.deepEqual([...alternates.keys()].sort(), ["en", "pt-PT", "x-default"], loc);
    assert.ok([...alternates.values()].includes(loc), `${loc} lists itself`);
    assert.equal(alternates.get("x-default"), alternates.get("pt-PT"));
    alternatesByLoc.set(loc, alternates);
  }
  for (const [loc, alternates] of alternatesByLoc) {
    for (const href of alternates.values()) {
      assert.deepEqual(alternatesByLoc.get(href), alternates, `${loc} ↔ ${href} reciprocal`);
    }
  }
});

/** RFC 9309 matching: the longest matching rule wins, Allow on a tie; `*` and `$` supported. */
function isAllowed(robots: string, agent: string, path: string): boolean {
  const groups: Array<{ agents: string[]; rules: Array<[boolean, string]> }> = [];
  let current: { agents: string[]; rules: Array<[boolean, string]> } | undefined;
  for (const raw of robots.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, field, value] = match;
    const name = field.toLowerCase();
    if (name === "user-agent") {
      if (!current || current.rules.length) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
    } else if ((name === "allow" || name === "disallow") && current) {
      current.rules.push([name === "allow", value]);
    }
  }
  const group = groups.find((item) => item.agents.includes(agent.toLowerCase())) ??
    groups.find((item) => item.agents.includes("*"));
  assert.ok(group, `a group applies to ${agent}`);
  let best: [boolean, number] = [true, -1];
  for (const [allow, pattern] of group.rules) {
    if (!pattern) continue;
    const anchored = pattern.endsWith("$");
    const source = (anchored ? pattern.slice(0, -1) : pattern).split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
    if (!new RegExp(`^${source}${anchored ? "$" : ""}`).test(path)) continue;
    if (pattern.length > best[1] || (pattern.length === best[1] && allow)) {
      best = [allow, pattern.length];
    }
  }
  return best[0];
}

test("GET /robots.txt allows every crawler, names the AI crawlers and keeps /api/ out but its index", async () => {
  const { response, body } = await get("/robots.txt");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/plain; charset=utf-8");
  assert.match(body, /^Sitemap: https:\/\/studio\.example\/sitemap\.xml$/m);
  for (const operator of ["OpenAI", "Anthropic", "Perplexity", "Google", "Apple", "Common Crawl"]) {
    assert.ok(AI_CRAWLERS.some((crawler) => crawler.operator === operator), operator);
  }
  for (
    const token of [
      "GPTBot",
      "OAI-SearchBot",
      "ChatGPT-User",
      "ClaudeBot",
      "Claude-SearchBot",
      "Claude-User",
      "PerplexityBot",
      "Perplexity-User",
      "Google-Extended",
      "Applebot-Extended",
      "CCBot",
    ]
  ) {
    assert.match(body, new RegExp(`^User-agent: ${token}$`, "m"), token);
  }
  const groups = body.split(/\n\n+/).filter((group) => /^User-agent:/m.test(group));
  for (const group of groups) {
    assert.match(group, /^Content-Signal: search=yes, ai-input=yes, ai-train=yes$/m);
  }
  for (const agent of ["*", "SomeNewBot", ...AI_CRAWLERS.map((crawler) => crawler.token)]) {
    for (
      const path of ["/", "/servicos", "/en/agents", "/md/servicos", "/llms.txt", "/api", "/api/v1"]
    ) {
      assert.equal(isAllowed(body, agent, path), true, `${agent} may crawl ${path}`);
    }
    for (
      const path of [
        "/api/v1/health",
        "/api/v1/booking/slots?month=2026-12",
        "/api/health",
        "/api/v1/",
      ]
    ) {
      assert.equal(isAllowed(body, agent, path), false, `${agent} may not crawl ${path}`);
    }
  }
});

test("createSampleHandler({ content }) serves a corpus of the caller's own and refuses a broken one", async () => {
  const pages = SAMPLE_CORPUS.pages.map((page) =>
    page.id === "home"
      ? { ...page, markdown: page.markdown.replace(/^# .+$/m, "# A corpus of our own") }
      : page
  );
  const own = createSampleHandler({ baseUrl: BASE, content: { ...SAMPLE_CORPUS, pages } });
  const response = await own(buildRequest("/", { headers: { Accept: "text/markdown" } }));
  assert.equal(response.status, 200);
  assert.match(await response.text(), /^# A corpus of our own$/m);
  const orphan = SAMPLE_CORPUS.pages.filter((page) =>
    !(page.id === "about" && page.language === "en")
  );
  assert.throws(
    () => createSampleHandler({ content: { ...SAMPLE_CORPUS, pages: orphan } }),
    /Page "about" has no "en" translation/,
  );
  const clash = SAMPLE_CORPUS.pages.map((page) =>
    page.id === "work" && page.language === "pt" ? { ...page, path: "/sobre" } : page
  );
  assert.throws(
    () => createSampleHandler({ content: { ...SAMPLE_CORPUS, pages: clash } }),
    /Duplicate path "\/sobre"/,
  );
});

test("the header marks the page it is on, and on a case study the work index it belongs to", async () => {
  const navLinks = async (path: string) => {
    const response = await createSampleHandler({ baseUrl: BASE })(buildRequest(path));
    assert.equal(response.status, 200);
    const html = await response.text();
    const header = html.slice(
      html.indexOf('<header class="site-header">'),
      html.indexOf("</header>"),
    );
    return [...header.matchAll(/<a href="([^"]+)"[^>]*?( aria-current="(?:page|true)")?>/g)]
      .filter((match) => match[2]).map((match) => `${match[1]}${match[2]}`);
  };
  assert.deepEqual(await navLinks("/en/work"), ['/en/work aria-current="page"']);
  assert.deepEqual(await navLinks("/en/work/mare-alta"), ['/en/work aria-current="true"']);
  assert.deepEqual(await navLinks("/trabalho/mare-alta"), ['/trabalho aria-current="true"']);
  assert.deepEqual(await navLinks("/en"), []);
});
