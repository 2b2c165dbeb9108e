import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import {
  buildContent,
  readContentFiles,
  readPhotoFile,
  type SourceFile,
} from "../../scripts/build_content.ts";
import {
  type FileGroupPlan,
  RENDITION_WIDTHS,
  toPhotoWidths,
} from "../../scripts/build_pictures.ts";
import { createSampleHandler, SAMPLE_STUDIO } from "../_fixture_studio.ts";
import type { Corpus, CorpusPicture } from "../../lib/site/corpus.ts";
import { buildRequest } from "../_support.ts";

const BASE = "https://studio.example";
/** The sample fixture studio's sources (its pages, tokens and pictures). */
const files = await readContentFiles(SAMPLE_STUDIO.contentFolder);

/** The GPS IFD's pointer (tag 0x8825), in either byte order: a photo that says where it was taken. */
function hasGpsPointer(exif: Uint8Array): boolean {
  return exif.some((byte, index) =>
    (byte === 0x88 && exif[index + 1] === 0x25) || (byte === 0x25 && exif[index + 1] === 0x88)
  );
}

/**
 * A camera's JPEG: 2000×1200 as stored, on its side (EXIF orientation 6, so 1200×2000 upright:
 * the stored left half, red, is the top), with a copyright, a GPS position, an XMP packet and an
 * ICC profile.
 */
async function createCameraJpeg(): Promise<Uint8Array> {
  const red = await sharp({
    create: { width: 1000, height: 1200, channels: 3, background: "#d02020" },
  }).png().toBuffer();
  const xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ' +
    'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description ' +
    'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>A. Photographer</dc:creator>' +
    "</rdf:Description></rdf:RDF></x:xmpmeta>";
  const bytes = await sharp({
    create: { width: 2000, height: 1200, channels: 3, background: "#2040d0" },
  })
    .composite([{ input: red, left: 0, top: 0 }])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Copyright: "Studio photographer", Make: "Camera" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "38/1 42/1 3000/100" },
    })
    .withXmp(xmp)
    .toBuffer();
  return new Uint8Array(bytes);
}

/** A PNG drawn at the given size, with a transparent half and an EXIF copyright. */
async function createPng(width: number, height: number): Promise<Uint8Array> {
  const bytes = await sharp({
    create: { width, height, channels: 4, background: { r: 200, g: 80, b: 40, alpha: 0.5 } },
  })
    .png()
    .withExifMerge({ IFD0: { Copyright: "Studio photographer" } })
    .toBuffer();
  return new Uint8Array(bytes);
}

/** A case study's page in one language, showing the given cover and gallery. */
function toCaseStudy(
  language: "pt" | "en",
  cover: string,
  gallery: readonly string[],
): SourceFile {
  const path = language === "en" ? "/en/work/photo-test" : "/trabalho/fotos-teste";
  const text = [
    "---",
    `path: ${path}`,
    "title: Photo test",
    "description: A case study shown with photos.",
    "updated: 2026-12-01",
    "order: 6.9",
    "section: studio",
    "layout: case",
    "project:",
    "  client: Photo Client",
    '  year: "2026"',
    "  tags: [Photography]",
    "  summary: Photos from a camera and a screen.",
    "  cover:",
    `    src: ${cover}`,
    "    alt: A blue wall in the morning light, seen from the street.",
    gallery.length ? "  gallery:" : "  gallery: []",
    ...gallery.flatMap((src, index) => [
      `    - src: ${src}`,
      `      alt: Picture ${index + 1} of the gallery, orange on white.`,
    ]),
    "---",
    "",
    "# Photo test",
    "",
    "A case study whose pictures are photos.",
    "",
    "## The story",
    "",
    "It went well.",
    "",
  ].join("\n");
  return { path: `${language}/work_photo_test.md`, text };
}

const cameraJpeg = await createCameraJpeg();
const narrowPng = await createPng(700, 400);
const tinyPng = await createPng(300, 200);

/** The sample content and a case study with a camera's JPEG, a 700 px PNG and a 300 px one. */
async function buildPhotoFiles(): Promise<SourceFile[]> {
  const gallery = ["work-photo-test-screen.png", "work-photo-test-icon.png"];
  return [
    ...files,
    toCaseStudy("pt", "work-photo-test-cover.jpg", gallery),
    toCaseStudy("en", "work-photo-test-cover.jpg", gallery),
    await readPhotoFile("assets/work-photo-test-cover.jpg", cameraJpeg),
    await readPhotoFile("assets/work-photo-test-screen.png", narrowPng),
    await readPhotoFile("assets/work-photo-test-icon.png", tinyPng),
  ];
}

const built = buildContent(await buildPhotoFiles());
const photoPlans = built.groups.filter((plan) => plan.group.startsWith("work-photo-test-"));
const encoded: Record<string, Uint8Array> = {};
for (const plan of photoPlans) Object.assign(encoded, await plan.encode());

function findPictures(corpus: Corpus): CorpusPicture[] {
  const page = corpus.pages.find((item) => item.path === "/en/work/photo-test");
  assert.ok(page?.project, "the case study is in the corpus");
  return [page.project.cover, ...page.project.gallery];
}

test("readPhotoFile() reads a photo's size upright, its EXIF orientation applied", async () => {
  const source = await sharp(cameraJpeg).metadata();
  assert.deepEqual([source.width, source.height, source.orientation], [2000, 1200, 6]);
  const file = await readPhotoFile("assets/work-photo-test-cover.jpg", cameraJpeg);
  assert.deepEqual(file.size, { width: 1200, height: 2000 });
  await assert.rejects(
    readPhotoFile("assets/broken.jpg", new TextEncoder().encode("not a photo")),
    /content\/assets\/broken\.jpg: is not a photo sharp can read/,
  );
});

test("toPhotoWidths() keeps the rendition widths a photo covers, or its own width alone", () => {
  assert.deepEqual(toPhotoWidths(4000), RENDITION_WIDTHS);
  assert.deepEqual(toPhotoWidths(1600), [480, 720, 960, 1600]);
  assert.deepEqual(toPhotoWidths(1200), [480, 720, 960]);
  assert.deepEqual(toPhotoWidths(700), [480]);
  assert.deepEqual(toPhotoWidths(300), [300]);
});

test("buildContent() plans a JPEG's and a PNG's renditions as AVIF, WebP and JPEG at the widths they cover, the largest JPEG their fallback", () => {
  const [cover, screen, icon] = findPictures(built.corpus);
  const widths = (picture: CorpusPicture, type: string) =>
    (picture.renditions ?? []).filter((item) => item.type === type).map((item) => item.width);
  for (
    const [picture, expected, size] of [
      [cover, [480, 720, 960], [1200, 2000]],
      [screen, [480], [700, 400]],
      [icon, [300], [300, 200]],
    ] as const
  ) {
    assert.deepEqual([picture.width, picture.height], size, picture.src);
    for (const type of ["image/avif", "image/webp", "image/jpeg"]) {
      assert.deepEqual(widths(picture, type), expected, `${picture.src} ${type}`);
    }
    assert.equal(picture.fallback, picture.src.replace(/\.(jpg|png)$/, `-${expected.at(-1)}.jpg`));
  }
  // A photo is served as its renditions only, never as its source (nor its metadata).
  for (const name of ["work-photo-test-cover.jpg", "work-photo-test-screen.png"]) {
    assert.equal(built.corpus.assets[name], undefined, name);
  }
  assert.equal(photoPlans.length, 3);
  for (const plan of photoPlans) {
    for (const { name } of plan.files) assert.ok(built.corpus.files?.[name], name);
  }
});

test("a photo's renditions are never wider than the photo, are of their declared size and format, and carry no EXIF, GPS, XMP, IPTC or ICC profile", async () => {
  const source = await sharp(cameraJpeg).metadata();
  assert.ok(source.exif && source.xmp && source.icc, "the camera's JPEG carries metadata");
  assert.ok(new TextDecoder("latin1").decode(source.exif).includes("Studio photographer"));
  assert.ok(hasGpsPointer(source.exif), "and a GPS position");
  assert.ok((await sharp(narrowPng).metadata()).exif, "the PNG carries EXIF");
  const formats = { "image/avif": "heif", "image/webp": "webp", "image/jpeg": "jpeg" };
  for (const picture of findPictures(built.corpus)) {
    for (const rendition of picture.renditions ?? []) {
      const bytes = encoded[rendition.name];
      assert.ok(bytes, rendition.name);
      const metadata = await sharp(bytes).metadata();
      assert.equal(metadata.format, formats[rendition.type], rendition.name);
      assert.deepEqual(
        [metadata.width, metadata.height],
        [rendition.width, rendition.height],
        rendition.name,
      );
      assert.ok(rendition.width <= picture.width, `${rendition.name} is not scaled up`);
      assert.equal(metadata.exif, undefined, `${rendition.name}: no EXIF`);
      assert.equal(metadata.xmp, undefined, `${rendition.name}: no XMP`);
      assert.equal(metadata.iptc, undefined, `${rendition.name}: no IPTC`);
      assert.equal(metadata.icc, undefined, `${rendition.name}: no ICC profile`);
      assert.equal(metadata.orientation, undefined, `${rendition.name}: no orientation`);
      // JPEG has no alpha: a transparent PNG's fallback is flattened on white.
      if (rendition.type === "image/jpeg") assert.equal(metadata.hasAlpha, false);
    }
  }
});

test("a photo's renditions stand upright: the camera's JPEG turned by its EXIF orientation", async () => {
  const [cover] = findPictures(built.corpus);
  /** The mean red and blue of a band of the picture, top or bottom quarter. */
  const readBand = async (bytes: Uint8Array, band: "top" | "bottom") => {
    const { width = 0, height = 0 } = await sharp(bytes).metadata();
    const quarter = Math.floor(height / 4);
    const top = band === "top" ? 0 : height - quarter;
    // stats() reads its input, not the pipeline's output: the band is cut out first.
    const cut = await sharp(bytes).extract({ left: 0, top, width, height: quarter }).png()
      .toBuffer();
    const { channels } = await sharp(cut).stats();
    return { red: channels[0].mean, blue: channels[2].mean };
  };
  for (const rendition of cover.renditions ?? []) {
    const bytes = encoded[rendition.name];
    const top = await readBand(bytes, "top");
    const bottom = await readBand(bytes, "bottom");
    assert.ok(top.red > 150 && top.blue < 100, `${rendition.name}: red on top`);
    assert.ok(bottom.red < 100 && bottom.blue > 150, `${rendition.name}: blue below`);
  }
});

test("buildContent() versions a photo's renditions by its bytes", async () => {
  const plan = (groups: readonly FileGroupPlan[]) =>
    groups.find((item) => item.group === "work-photo-test-screen");
  const again = buildContent(await buildPhotoFiles());
  assert.equal(plan(again.groups)?.key, plan(built.groups)?.key);
  const redrawn = buildContent(
    (await buildPhotoFiles()).map((file) =>
      file.path === "assets/work-photo-test-screen.png" && file.bytes
        ? { ...file, bytes: Uint8Array.from([...file.bytes, 0]) }
        : file
    ),
  );
  assert.notEqual(plan(redrawn.groups)?.key, plan(built.groups)?.key);
  assert.equal(plan(redrawn.groups)?.group, "work-photo-test-screen");
});

test("GET of a case study with photos offers AVIF and WebP <source>s and a JPEG <img> with its size; its Markdown and llms-full.txt link the largest JPEG", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE,
    content: {
      ...built.corpus,
      loadFiles: (name) => {
        const bytes = encoded[name];
        if (!bytes) return Promise.reject(new Error(`no file "${name}"`));
        return Promise.resolve(new Uint8Array(bytes));
      },
    },
  });
  const response = await handler(buildRequest("/en/work/photo-test"));
  assert.equal(response.status, 200);
  const html = await response.text();
  const pictures = [...html.matchAll(/<picture>(.*?)<\/picture>/gs)].map(([, inner]) => inner);
  const hero = pictures.find((inner) => inner.includes("work-photo-test-cover"));
  assert.ok(hero, "the hero is a <picture>");
  const version = "\\?v=[0-9a-f]{16}";
  const url = (name: string) => `/assets/work-photo-test-cover-${name}${version}`;
  assert.match(
    hero,
    new RegExp(
      `^<source type="image/avif" srcset="${url("480.avif")} 480w, ${url("720.avif")} 720w, ` +
        `${url("960.avif")} 960w" sizes="([^"]+)"><source type="image/webp" srcset="${
          url("480.webp")
        } 480w, ${url("720.webp")} 720w, ${url("960.webp")} 960w" sizes="\\1"><img src="${
          url("960.jpg")
        }" srcset="${url("480.jpg")} 480w, ${url("720.jpg")} 720w, ${
          url("960.jpg")
        } 960w" sizes="\\1" width="1200" height="2000" ` +
        `alt="A blue wall in the morning light, seen from the street." fetchpriority="high" ` +
        `loading="eager">$`,
    ),
  );
  assert.match(hero, /sizes="\(min-width: \d+px\) [^"]*1344px/, "the wide column's sizes");
  const icon = pictures.find((inner) => inner.includes("work-photo-test-icon"));
  assert.match(
    icon ?? "",
    new RegExp(
      `<img src="/assets/work-photo-test-icon-300\\.jpg${version}" srcset="[^"]+ 300w" ` +
        `sizes="[^"]+" width="300" height="200" alt="[^"]+" loading="lazy" decoding="async">`,
    ),
  );
  assert.doesNotMatch(html, /work-photo-test-cover\.jpg/, "the source is never named");

  const jpeg = /<img src="([^"]+)"/.exec(hero)?.[1] ?? "";
  const file = await handler(
    buildRequest(jpeg, { headers: { "Accept-Encoding": "gzip, deflate, br" } }),
  );
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("Content-Type"), "image/jpeg");
  assert.equal(file.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
  assert.equal(file.headers.get("Content-Encoding"), null, "a JPEG is not compressed again");
  assert.ok(file.headers.get("ETag"));
  const metadata = await sharp(new Uint8Array(await file.arrayBuffer())).metadata();
  assert.deepEqual([metadata.width, metadata.height, metadata.exif], [960, 1600, undefined]);
  const source = await handler(buildRequest("/assets/work-photo-test-cover.jpg"));
  assert.equal(source.status, 404, "the photo's source is not served");
  await source.arrayBuffer();

  const markdown = await handler(
    buildRequest("/en/work/photo-test", { headers: { Accept: "text/markdown" } }),
  );
  assert.equal(markdown.status, 200);
  const twin = await markdown.text();
  const link = `(${BASE}/assets/work-photo-test-cover-960.jpg)`;
  assert.ok(twin.includes(`![A blue wall in the morning light, seen from the street.]${link}`));
  assert.ok(twin.includes(`(${BASE}/assets/work-photo-test-screen-480.jpg)`));
  const full = await handler(buildRequest("/llms-full.txt"));
  assert.equal(full.status, 200);
  assert.ok((await full.text()).includes(link), "llms-full.txt links the JPEG");
});

test("a corpus with photos but without its loader of files shows no broken picture", async () => {
  const { loadFiles: _loadFiles, ...corpus } = built.corpus;
  const handler = createSampleHandler({ baseUrl: BASE, content: corpus });
  const response = await handler(buildRequest("/en/work/photo-test"));
  assert.equal(response.status, 200);
  const html = await response.text();
  assert.doesNotMatch(html, /work-photo-test-/);
  assert.doesNotMatch(html, /<figure class="case-hero">/);
  // The SVG pictures of the other case studies still show as themselves.
  const other = await (await handler(buildRequest("/en/work"))).text();
  assert.match(other, /<img src="\/assets\/work-[a-z-]+\.svg\?v=[0-9a-f]{8}" /);
});

test("checkCorpus() refuses a photo whose fallback is not one of its JPEG renditions", () => {
  const corpus = structuredClone({ ...built.corpus, loadFiles: undefined });
  const page = corpus.pages.find((item) => item.path === "/en/work/photo-test");
  assert.ok(page?.project);
  page.project.cover.fallback = "work-photo-test-cover-960.avif";
  assert.throws(
    () => createSampleHandler({ baseUrl: BASE, content: corpus }),
    /fallback "work-photo-test-cover-960\.avif", which is not one of its JPEG renditions/,
  );
});

test("buildContent() refuses a picture in another format, naming the formats it takes", async () => {
  const gif = new Uint8Array(
    await sharp({
      create: { width: 10, height: 10, channels: 3, background: "#000" },
    }).gif().toBuffer(),
  );
  const withGif = [
    ...files,
    toCaseStudy("pt", "work-photo-test-cover.gif", []),
    toCaseStudy("en", "work-photo-test-cover.gif", []),
    { path: "assets/work-photo-test-cover.gif", text: "", bytes: gif },
  ];
  assert.throws(
    () => buildContent(withGif),
    /content\/pt\/work_photo_test\.md: picture "work-photo-test-cover\.gif" is in a format the build does not take: use JPEG \(\.jpg, \.jpeg\), PNG \(\.png\), WebP \(\.webp\), AVIF \(\.avif\) or SVG \(\.svg\)/,
  );
});

test("buildContent() refuses two pictures whose renditions would share their names", async () => {
  const clash = [
    ...files,
    toCaseStudy("pt", "work-photo-test-cover.jpg", ["work-photo-test-cover.png"]),
    toCaseStudy("en", "work-photo-test-cover.jpg", ["work-photo-test-cover.png"]),
    await readPhotoFile("assets/work-photo-test-cover.jpg", cameraJpeg),
    await readPhotoFile("assets/work-photo-test-cover.png", tinyPng),
  ];
  assert.throws(
    () => buildContent(clash),
    /content\/assets\/work-photo-test-cover\.png: its renditions would have the names of those of "assets\/work-photo-test-cover\.jpg"/,
  );
});
