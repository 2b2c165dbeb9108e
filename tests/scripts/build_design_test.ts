import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { buildContent, readContentFiles, type SourceFile } from "../../scripts/build_content.ts";
import { checkContrast, contrastRatio, DesignError } from "../../scripts/build_design.ts";
import { createSampleHandler, SAMPLE_STUDIO } from "../_fixture_studio.ts";

/** The sample fixture studio's sources (its pages, tokens and pictures). */
const files = await readContentFiles(SAMPLE_STUDIO.contentFolder);

/** A second studio: other colours, type, font file and family, and logo. */
async function buildFixtureFiles(): Promise<SourceFile[]> {
  const tokens = files.find((file) => file.path === "tokens.yaml")?.text ?? "";
  const fontFile = "instrument-sans-latin-wdth-normal.woff2";
  const fontPath = createRequire(import.meta.url).resolve(
    `@fontsource-variable/instrument-sans/files/${fontFile}`,
  );
  const otherTokens = tokens
    .replace("file: instrument-sans-latin-wght-normal.woff2", `file: ${fontFile}`)
    .replace("family: Instrument Sans", "family: Fixture Grotesk")
    .replace('background: "#f6f3ee"', 'background: "#eef4ff"')
    .replace('accent: "#b23a16"', 'accent: "#0b5d3b"')
    .replace("logo: assets/logo.svg", "logo: assets/fixture-logo.svg")
    .replace("wide: 84rem", "wide: 70rem");
  const logo =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48" width="48" height="48"><circle id="fixture-mark" cx="24" cy="24" r="18" fill="currentColor"/></svg>\n';
  return [
    ...files.filter((file) =>
      file.path !== "tokens.yaml" && file.path !== "fonts/instrument-sans-latin-wght-normal.woff2"
    ),
    { path: "tokens.yaml", text: otherTokens },
    { path: "assets/fixture-logo.svg", text: logo },
    { path: `fonts/${fontFile}`, text: "", bytes: new Uint8Array(await readFile(fontPath)) },
  ];
}

test("buildContent() takes the colours, font and logo from the content's tokens, not from code", async () => {
  const { corpus, groups } = buildContent(await buildFixtureFiles());
  // The build's files (the font among them) read from their plans, as build/files/ holds them.
  const content = {
    ...corpus,
    loadFiles: async (name: string) => {
      const plan = groups.find((group) => group.files.some((file) => file.name === name));
      if (!plan) throw new Error(`No file "${name}"`);
      return new Uint8Array((await plan.encode())[name]);
    },
  };
  const handler = createSampleHandler({ content, baseUrl: "https://fixture.example" });
  const page = await handler(new Request("https://fixture.example/en"));
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(
    html,
    /<a class="brand" href="\/en"><svg aria-hidden="true"[^>]*><circle id="fixture-mark"/,
  );
  assert.match(
    html,
    /<meta name="theme-color" media="\(prefers-color-scheme: light\)" content="#eef4ff">/,
  );
  const font = /<link rel="preload" href="([^"]+)" as="font"/.exec(html)?.[1] ?? "";
  assert.match(font, /^\/assets\/instrument-sans-latin-wdth-normal\.woff2\?v=[0-9a-f]{16}$/);
  const fontResponse = await handler(new Request("https://fixture.example" + font));
  assert.equal(fontResponse.headers.get("Content-Type"), "font/woff2");
  assert.equal(fontResponse.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
  assert.equal((await fontResponse.arrayBuffer()).byteLength > 10_000, true);
  const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1] ?? "";
  const css = await (await handler(new Request("https://fixture.example" + href))).text();
  assert.match(css, /--color-background:#eef4ff/);
  assert.match(css, /--color-accent:#0b5d3b/);
  assert.match(css, /--wide:70rem/);
  assert.match(css, /font-family:Fixture Grotesk/);
  assert.ok(css.includes(`url(${font})`), "the stylesheet names the versioned font");
  const icon = await handler(new Request("https://fixture.example/favicon.ico"));
  assert.equal(icon.headers.get("Content-Type"), "image/x-icon");
  await icon.body?.cancel();
});

test("checkContrast() refuses a colour pair under 4.5:1", () => {
  assert.equal(Math.round(contrastRatio("#000000", "#ffffff")), 21);
  const scheme = {
    background: "#ffffff",
    surface: "#ffffff",
    text: "#111111",
    muted: "#555555",
    border: "#dddddd",
    accent: "#b23a16",
    accentText: "#ffffff",
    link: "#9a3212",
    focus: "#1a4fd6",
    ok: "#1d6b3a",
    bad: "#a3161a",
  };
  checkContrast({ light: scheme, dark: { ...scheme } });
  assert.throws(
    () => checkContrast({ light: { ...scheme, muted: "#aaaaaa" }, dark: scheme }),
    (error) => error instanceof DesignError && /light muted on background/.test(error.message),
  );
});
