import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { createSampleHandler, SAMPLE_CORPUS, SAMPLE_STUDIO } from "../_fixture_studio.ts";
import type { Corpus } from "../../lib/site/corpus.ts";
import { buildRequest } from "../_support.ts";

const BASE = "https://studio.example";
const handler = createSampleHandler({ baseUrl: BASE });
const CASE_STUDIES = SAMPLE_CORPUS.pages.filter((page) => page.layout === "case");

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await handler(buildRequest(path, { headers }));
  return { response, body: new Uint8Array(await response.arrayBuffer()) };
}

async function getHtml(path: string): Promise<string> {
  const { response, body } = await get(path);
  assert.equal(response.status, 200, path);
  return new TextDecoder().decode(body);
}

/** Every `<picture>` of a page: its sources (type, srcset as URL and width, sizes) and `<img>`. */
function readPictures(html: string) {
  return [...html.matchAll(/<picture>(.*?)<\/picture>/gs)].map(([, inner]) => ({
    sources: [...inner.matchAll(/<source type="([^"]+)" srcset="([^"]+)" sizes="([^"]+)">/g)]
      .map(([, type, srcset, sizes]) => ({
        type,
        sizes,
        candidates: srcset.split(", ").map((candidate) => {
          const [url, width] = candidate.split(" ");
          return { url, width: Number(width.slice(0, -1)) };
        }),
      })),
    img: /<img [^>]*>/.exec(inner)?.[0] ?? "",
  }));
}

test("GET of a case study offers its pictures as AVIF, then WebP, by width, each URL answering its type, width and a year's immutable cache, uncompressed", async () => {
  const page = CASE_STUDIES.find((item) => item.language === "en");
  assert.ok(page?.project);
  const html = await getHtml(page.path);
  const pictures = readPictures(html);
  // The hero, the gallery and the next project's card.
  assert.equal(pictures.length, 1 + page.project.gallery.length + 1);
  for (const picture of pictures) {
    assert.deepEqual(picture.sources.map((source) => source.type), ["image/avif", "image/webp"]);
    assert.match(picture.img, /^<img src="\/assets\/work-[a-z-]+\.svg\?v=[0-9a-f]{8}" /);
    assert.match(picture.img, / width="\d+" height="\d+" /);
    for (const source of picture.sources) {
      assert.ok(source.candidates.length >= 2, "at least two widths");
      assert.match(source.sizes, /^\(min-width: \d+px\) /);
      for (const { url, width } of source.candidates) {
        assert.match(url, /^\/assets\/[a-z0-9-]+\.(avif|webp)\?v=[0-9a-f]{16}$/);
        const { response, body } = await get(url, { "Accept-Encoding": "gzip, deflate, br" });
        assert.equal(response.status, 200, url);
        assert.equal(response.headers.get("Content-Type"), source.type);
        assert.equal(response.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
        assert.equal(response.headers.get("Content-Encoding"), null, "no compression: " + url);
        const metadata = await sharp(body).metadata();
        assert.equal(metadata.format, source.type === "image/avif" ? "heif" : "webp");
        assert.equal(metadata.width, width, url);
        const [, intrinsicWidth, intrinsicHeight] = /width="(\d+)" height="(\d+)"/.exec(
          picture.img,
        )!.map(Number);
        assert.ok(
          Math.abs((metadata.height ?? 0) - width * intrinsicHeight / intrinsicWidth) <= 1,
          `${url} keeps the picture's proportions`,
        );
        const again = await get(url, { "If-None-Match": response.headers.get("ETag") ?? "" });
        assert.equal(again.response.status, 304);
      }
    }
  }
});

test("GET of a case study fetches its hero first and every other picture lazily; a card's picture is decorative", async () => {
  for (const page of CASE_STUDIES) {
    const pictures = readPictures(await getHtml(page.path));
    const [hero, ...others] = pictures;
    assert.match(hero.img, / fetchpriority="high"/, page.path);
    assert.doesNotMatch(hero.img, /loading="lazy"/);
    assert.match(hero.img, /alt="[^"]{10,}"/, "the hero says what it shows");
    assert.match(hero.sources[0].sizes, /1344px/, "the hero spans the wide column");
    for (const picture of others) {
      assert.match(picture.img, / loading="lazy" decoding="async"/, page.path);
      assert.doesNotMatch(picture.img, /fetchpriority/);
    }
    assert.match(others.at(-1)?.img ?? "", / alt=""/, "the next project's card");
  }
  // The work index opens with its first card, the first viewport's largest picture; the home
  // page's selection comes after its hero, out of view.
  for (
    const [path, leading] of [["/", 0], ["/en", 0], ["/trabalho", 1], ["/en/work", 1]] as const
  ) {
    const pictures = readPictures(await getHtml(path));
    assert.ok(pictures.length >= 3, path);
    pictures.forEach((picture, index) => {
      const first = index < leading;
      assert.equal(/ fetchpriority="high"/.test(picture.img), first, `${path} #${index}`);
      assert.equal(/ loading="lazy"/.test(picture.img), !first, `${path} #${index}`);
      assert.match(picture.sources[0].sizes, /429px/, "a card's sizes: three columns at most");
    });
  }
});

test("GET of a case study's camera photo offers AVIF, WebP and a JPEG fallback by width, none carrying the photo's EXIF or GPS position, and never the photo itself", async () => {
  // The sample fixture's one photo: a camera JPEG with a maker, a copyright and a GPS position.
  const source = "work-partilha-solar-roof.jpg";
  const original = await readFile(SAMPLE_STUDIO.contentFolder + "assets/" + source);
  const camera = await sharp(original).metadata();
  assert.ok(camera.exif && camera.exif.includes("Fixture Camera"), "the source has its EXIF");
  const page = CASE_STUDIES.find((item) =>
    item.language === "en" && item.project?.gallery.some((picture) => picture.src === source)
  );
  assert.ok(page, "a case study shows the photo");
  const photo = readPictures(await getHtml(page.path)).find((picture) =>
    /src="\/assets\/work-partilha-solar-roof-\d+\.jpg\?v=/.test(picture.img)
  );
  assert.ok(photo, "the photo's <picture>, whose <img> is a JPEG rendition");
  assert.deepEqual(photo.sources.map((item) => item.type), ["image/avif", "image/webp"]);
  const fallbacks = [...photo.img.matchAll(/(\/assets\/[a-z0-9-]+\.jpg\?v=[0-9a-f]+)/g)]
    .map((match) => match[1]);
  const urls = [
    ...photo.sources.flatMap((item) => item.candidates.map((candidate) => candidate.url)),
    ...fallbacks,
  ];
  assert.ok(urls.length >= 7, `${urls.length} renditions`);
  for (const url of urls) {
    const { response, body } = await get(url);
    assert.equal(response.status, 200, url);
    const metadata = await sharp(body).metadata();
    assert.equal(metadata.exif, undefined, `${url} carries no EXIF (no GPS position)`);
    assert.equal(metadata.xmp, undefined, url);
    assert.ok((metadata.width ?? 0) < 1800, `${url} is smaller than the photo`);
    assert.ok(!new TextDecoder("latin1").decode(body).includes("Fixture Camera"), url);
  }
  const { response } = await get("/assets/" + source);
  assert.equal(response.status, 404, "the photo itself is not served");
});

test("GET of every page names its own 1200×630 PNG sharing card, which answers and differs between pages", async () => {
  const cards = new Map<string, string>();
  for (const page of SAMPLE_CORPUS.pages) {
    const html = await getHtml(page.path);
    const image = /<meta property="og:image" content="([^"]+)">/.exec(html)?.[1] ?? "";
    assert.ok(image.startsWith(BASE + "/assets/card-"), `${page.path}: ${image}`);
    assert.ok(html.includes(`<meta name="twitter:image" content="${image}">`));
    assert.ok(html.includes('<meta name="twitter:card" content="summary_large_image">'));
    assert.ok(html.includes('<meta property="og:image:width" content="1200">'));
    assert.ok(html.includes('<meta property="og:image:height" content="630">'));
    assert.match(html, /<meta property="og:image:alt" content="[^"]+">/);
    const { response, body } = await get(image.slice(BASE.length));
    assert.equal(response.status, 200, image);
    assert.equal(response.headers.get("Content-Type"), "image/png");
    assert.equal(response.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
    const metadata = await sharp(body).metadata();
    assert.deepEqual([metadata.format, metadata.width, metadata.height], ["png", 1200, 630]);
    assert.ok(body.length < 40_000, `${image}: ${body.length} bytes`);
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", body))).join();
    assert.ok(!cards.has(digest), `${page.path} has the card of ${cards.get(digest)}`);
    cards.set(digest, page.path);
  }
});

test("picture and card bytes are read neither with the corpus nor for a page, but once per file on its first request", async () => {
  const calls: string[] = [];
  const corpus: Corpus = {
    ...SAMPLE_CORPUS,
    loadFiles: (name) => {
      calls.push(name);
      return SAMPLE_CORPUS.loadFiles!(name);
    },
  };
  const spied = createSampleHandler({ baseUrl: BASE, content: corpus });
  const page = CASE_STUDIES[0];
  const html = await (await spied(buildRequest(page.path))).text();
  await (await spied(buildRequest("/"))).text();
  assert.deepEqual(calls, [], "no module is loaded to render pages");
  const urls = readPictures(html)[0].sources.flatMap((source) => source.candidates)
    .map((candidate) => candidate.url);
  for (const url of [...urls, ...urls]) {
    const response = await spied(buildRequest(url));
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  }
  const names = urls.map((url) => new URL(url, BASE).pathname.replace("/assets/", ""));
  assert.ok(names.length >= 6, `${names.length} renditions`);
  assert.deepEqual(calls, names, "each file read once, on its first request");
  const missing = await spied(buildRequest("/assets/work-none-480.avif"));
  assert.equal(missing.status, 404);
  await missing.arrayBuffer();
});

test("a corpus without its loader of files shows the SVG pictures and names no card it cannot serve", async () => {
  const { loadFiles: _loadFiles, ...data } = SAMPLE_CORPUS;
  const plain = createSampleHandler({ baseUrl: BASE, content: data });
  const html = await (await plain(buildRequest(CASE_STUDIES[0].path))).text();
  assert.doesNotMatch(html, /<picture>/);
  assert.match(html, /<img src="\/assets\/work-[a-z-]+\.svg\?v=[0-9a-f]{8}" [^>]*fetchpriority/);
  assert.doesNotMatch(html, /og:image/);
  const card = await plain(buildRequest("/assets/card.png"));
  assert.equal(card.status, 404);
  await card.arrayBuffer();
});
