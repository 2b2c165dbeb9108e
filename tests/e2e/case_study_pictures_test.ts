import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startServer } from "./_server.ts";
import { CORPUS, pageOf, toLiteralPattern } from "./_studio.ts";

interface Picture {
  src: string;
  /** The widths the `<source>` of the chosen format offers, from its srcset. */
  offered: number[];
  loaded: boolean;
  naturalWidth: number;
  width: number;
  height: number;
  attributeRatio: number;
  viewportWidth: number;
}

test(
  "in Chromium, a case study's pictures load as AVIF at a width that fits their slot (390 px at 2×, 1440 px at 1×) and keep their proportions, filling the width on a phone and the wide column on a desktop",
  {
    skip: CHROMIUM_SKIP,
  },
  async () => {
    const caseStudy = pageOf("case", "en");
    const project = caseStudy.project;
    assert.ok(project, `${caseStudy.path} has a project`);
    // The AVIF renditions of the case studies' covers and galleries: what the page may load
    // (its own pictures, and the next case study's cover).
    const renditions = CORPUS.pages.flatMap((page) =>
      page.project ? [page.project.cover, ...page.project.gallery] : []
    ).flatMap((picture) => (picture.renditions ?? []).filter((item) => item.type === "image/avif"));
    assert.ok(renditions.length > 0, `${caseStudy.path} has AVIF renditions`);
    const avifSource = new RegExp(
      `/assets/(${renditions.map((item) => toLiteralPattern(item.name)).join("|")})` +
        "\\?v=[0-9a-f]{16}$",
    );
    const folder = mkdtempSync(join(tmpdir(), "studio-pictures-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const browser = await launchChromium();
    try {
      for (
        const { viewport, scale } of [
          { viewport: { width: 390, height: 844 }, scale: 2 },
          { viewport: { width: 1440, height: 900 }, scale: 1 },
        ]
      ) {
        const page = await browser.newPage({ viewport, deviceScaleFactor: scale });
        await page.goto(server.origin + caseStudy.path, { waitUntil: "networkidle" });
        // Lazy pictures load as they come into view: scroll through the page first.
        await page.evaluate(async () => {
          const scope = globalThis as unknown as {
            scrollTo(x: number, y: number): void;
            document: { body: { scrollHeight: number } };
          };
          for (let y = 0; y < scope.document.body.scrollHeight; y += 400) {
            scope.scrollTo(0, y);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        });
        await page.waitForLoadState("networkidle");
        const pictures: Picture[] = await page.$$eval(
          "main img",
          (images) =>
            images.map((image) => {
              const element = image as unknown as {
                currentSrc: string;
                complete: boolean;
                naturalWidth: number;
                getAttribute(name: string): string | null;
                getBoundingClientRect(): { width: number; height: number };
                ownerDocument: { documentElement: { clientWidth: number } };
                parentElement: {
                  querySelector(selector: string): { getAttribute(name: string): string } | null;
                };
              };
              const box = element.getBoundingClientRect();
              const avif = element.parentElement.querySelector('source[type="image/avif"]');
              return {
                src: element.currentSrc,
                offered: (avif?.getAttribute("srcset") ?? "").split(", ")
                  .map((candidate) => Number(candidate.split(" ")[1]?.slice(0, -1))),
                loaded: element.complete && element.naturalWidth > 0,
                naturalWidth: element.naturalWidth,
                width: box.width,
                height: box.height,
                attributeRatio: Number(element.getAttribute("width")) /
                  Number(element.getAttribute("height")),
                viewportWidth: element.ownerDocument.documentElement.clientWidth,
              };
            }),
        );
        assert.ok(
          pictures.length >= 1 + project.gallery.length,
          `${viewport.width}: a hero and a gallery of ${project.gallery.length}`,
        );
        for (const picture of pictures) {
          const label = `${viewport.width} px ${picture.src}`;
          assert.ok(picture.loaded, `${label} loaded`);
          assert.ok(picture.width > 0 && picture.height > 0, `${label} shown`);
          const ratio = picture.width / picture.height;
          assert.ok(Math.abs(ratio - picture.attributeRatio) < 0.02, `${label}: ${ratio} kept`);
          assert.ok(picture.width <= picture.viewportWidth, `${label} within the page`);
          // Chromium takes AVIF, and a width between the largest that is too small for the slot
          // at this density and the smallest that is large enough (its pick between the two
          // depends on how close each comes).
          assert.match(picture.src, avifSource, label);
          const needed = picture.width * scale;
          const enough = picture.offered.find((width) => width >= needed) ?? picture.offered.at(-1);
          const below = picture.offered.filter((width) => width < needed).at(-1) ?? 0;
          // naturalWidth is in CSS pixels (the file's width over its density): read the file's.
          const name = avifSource.exec(picture.src)?.[1];
          const chosen = renditions.find((item) => item.name === name)?.width ?? 0;
          assert.ok(
            chosen <= (enough ?? 0) && chosen >= below,
            `${label}: ${chosen} px for a slot of ${needed} device px`,
          );
        }
        const hero = pictures[0];
        if (viewport.width === 390) {
          assert.ok(hero.width >= viewport.width * 0.85, `the hero fills a phone: ${hero.width}`);
        } else {
          assert.ok(hero.width >= 900, `the hero spans the wide column: ${hero.width}`);
        }
        await page.close();
      }
    } finally {
      await browser.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
