/**
 * The site's look, built from the design tokens of `content/tokens.yaml` (see that file): the one
 * stylesheet (tokens as custom properties, the font faces and the rules of
 * `lib/site/style/*.css`, then a studio's own `content/style/site.css`, compiled by lightningcss
 * for nesting, minification and browser
 * targets), the icons (SVG favicon, `.ico`, apple-touch-icon, the manifest's icons), the sharing
 * card (1200×630 PNG) and the web app manifest. Called by `scripts/build_content.ts`; pure, so a
 * test can build a second studio's look from a fixture.
 *
 * @module
 */
import { transform } from "lightningcss";
import { Resvg } from "@resvg/resvg-js";
import { toBase64 } from "./_generated_module.ts";
import {
  array,
  create,
  nonempty,
  number,
  object,
  optional,
  record,
  string,
  StructError,
} from "superstruct";

const COLOR = nonempty(string());

const SCHEME = object({
  background: COLOR,
  surface: COLOR,
  text: COLOR,
  muted: COLOR,
  border: COLOR,
  accent: COLOR,
  accentText: COLOR,
  link: COLOR,
  focus: COLOR,
  ok: COLOR,
  bad: COLOR,
});

const STEP = object({ viewport: string(), size: string(), ratio: number() });

/** The tokens file's shape (`content/tokens.yaml`). */
export const DesignTokens = object({
  font: object({
    package: nonempty(string()),
    file: nonempty(string()),
    family: nonempty(string()),
    weight: string(),
    fallback: object({
      local: array(string()),
      sizeAdjust: string(),
      ascentOverride: string(),
      descentOverride: string(),
      lineGapOverride: string(),
    }),
    mono: string(),
    card: optional(object({
      package: nonempty(string()),
      regular: nonempty(string()),
      bold: nonempty(string()),
    })),
  }),
  logo: nonempty(string()),
  colors: object({ light: SCHEME, dark: SCHEME }),
  type: object({
    min: STEP,
    max: STEP,
    steps: array(number()),
    lineHeight: number(),
    headingLineHeight: number(),
  }),
  space: record(string(), number()),
  radius: record(string(), string()),
  grid: object({
    measure: string(),
    wide: string(),
    gutter: string(),
    columns: optional(number()),
    cardMin: optional(string()),
    galleryMin: optional(string()),
  }),
});

/** The design tokens. */
export type DesignTokens = typeof DesignTokens.TYPE;

/** A scheme's colours. */
export type SchemeColors = DesignTokens["colors"]["light"];

/** The built look: text and binary assets by file name, and what the template needs. */
export interface BuiltDesign {
  /** Assets by file name: the stylesheet, icons, card and manifest. */
  assets: Record<string, { type: string; body: string; encoding?: "base64" }>;
  /** The logo's SVG markup, inlined in the header. */
  logoSvg: string;
  /** The font's asset name, preloaded by every page. */
  font: string;
  /** `theme-color` per scheme. */
  themeColors: { light: string; dark: string };
  /** The sharing card's asset name and size. */
  card: { name: string; width: number; height: number };
}

/** A problem in the tokens or the stylesheet. */
export class DesignError extends Error {
  /** @param message What is wrong. */
  constructor(message: string) {
    super(message);
    this.name = "DesignError";
  }
}

/** Reads and checks the tokens file's parsed YAML. */
export function readTokens(data: unknown): DesignTokens {
  try {
    return create(data, DesignTokens);
  } catch (error) {
    if (error instanceof StructError) {
      throw new DesignError(`tokens.yaml "${error.path.join(".")}": ${error.message}`);
    }
    throw error;
  }
}

function toRgb(hex: string): [number, number, number] {
  const match = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!match) throw new DesignError(`Colour ${JSON.stringify(hex)} is not #rrggbb`);
  const value = parseInt(match[1], 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function luminance(hex: string): number {
  const [r, g, b] = toRgb(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio of two colours (WCAG 2.2, relative luminance).
 *
 * @param a A colour, `#rrggbb`. @param b Another.
 * @returns The ratio, from 1 to 21.
 */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** The colour pairs of a scheme that carry text, each needing 4.5:1. */
const TEXT_PAIRS: ReadonlyArray<[keyof SchemeColors, keyof SchemeColors]> = [
  ["text", "background"],
  ["text", "surface"],
  ["muted", "background"],
  ["muted", "surface"],
  ["link", "background"],
  ["link", "surface"],
  ["accentText", "accent"],
  ["bad", "background"],
  ["bad", "surface"],
  ["ok", "surface"],
  ["background", "text"],
];

/**
 * Checks every text colour pair of both schemes.
 *
 * @throws {DesignError} Naming the first pair under 4.5:1.
 */
export function checkContrast(colors: DesignTokens["colors"]): void {
  for (const scheme of ["light", "dark"] as const) {
    for (const [front, back] of TEXT_PAIRS) {
      const ratio = contrastRatio(colors[scheme][front], colors[scheme][back]);
      if (ratio < 4.5) {
        throw new DesignError(
          `tokens.yaml: ${scheme} ${front} on ${back} has contrast ${
            ratio.toFixed(2)
          }:1, under 4.5:1`,
        );
      }
    }
  }
}

function toRem(value: string): number {
  const match = /^([0-9.]+)rem$/.exec(value);
  if (!match) throw new DesignError(`${JSON.stringify(value)} is not a length in rem`);
  return Number(match[1]);
}

const round = (value: number) => Number(value.toFixed(4));

/** A fluid size from `min` rem at the smallest viewport to `max` rem at the largest. */
function fluid(min: number, max: number, tokens: DesignTokens): string {
  const minViewport = toRem(tokens.type.min.viewport);
  const maxViewport = toRem(tokens.type.max.viewport);
  const slope = (max - min) / (maxViewport - minViewport);
  const intercept = min - slope * minViewport;
  const [low, high] = min <= max ? [min, max] : [max, min];
  return `clamp(${round(low)}rem, ${round(intercept)}rem + ${round(slope * 100)}vw, ${
    round(high)
  }rem)`;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => "-" + letter.toLowerCase());

/** The custom properties of the tokens, one scheme's colours. */
function colorProperties(colors: SchemeColors): string {
  return Object.entries(colors).map(([name, value]) => `--color-${kebab(name)}: ${value};`)
    .join("\n");
}

/** The narrowest column of the grid of work cards, unless the tokens say (`grid.cardMin`). */
const DEFAULT_CARD_MIN = "24rem";

/** The narrowest column of a case study's gallery, unless the tokens say (`grid.galleryMin`). */
const DEFAULT_GALLERY_MIN = "26rem";

/** The root font size browsers start from, in CSS pixels: what `rem` means in media queries. */
const ROOT_PX = 16;

/**
 * The value of a CSS length of the tokens at a viewport width: `rem`, `px` and `vw` terms added
 * and subtracted, inside `clamp()`, `min()`, `max()` and `calc()`.
 */
function evaluateLength(expression: string, viewportPx: number): number {
  const text = expression.trim();
  const call = /^(clamp|min|max|calc)\((.*)\)$/s.exec(text);
  if (call) {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    for (let index = 0; index < call[2].length; index++) {
      const character = call[2][index];
      if (character === "(") depth++;
      else if (character === ")") depth--;
      else if (character === "," && depth === 0) {
        parts.push(call[2].slice(start, index));
        start = index + 1;
      }
    }
    parts.push(call[2].slice(start));
    const values = parts.map((part) => evaluateLength(part, viewportPx));
    if (call[1] === "clamp") return Math.max(values[0], Math.min(values[1], values[2]));
    if (call[1] === "min") return Math.min(...values);
    if (call[1] === "max") return Math.max(...values);
    return values[0];
  }
  let total = 0;
  for (const [, sign, number, unit] of text.matchAll(/([+-]?)\s*([0-9.]+)(rem|px|vw)/g)) {
    const value = Number(number) *
      (unit === "rem" ? ROOT_PX : unit === "vw" ? viewportPx / 100 : 1);
    total += sign === "-" ? -value : value;
  }
  if (!/[0-9]/.test(text)) {
    throw new DesignError(`Cannot evaluate the length ${JSON.stringify(text)}`);
  }
  return total;
}

/**
 * A `sizes` attribute (HTML, "sizes" of img and source) for a slot whose width in CSS pixels is
 * `slotPx(viewportPx)`: the viewport widths from 320 to 2560 px cut into pieces where the width is
 * linear in the viewport's (within half a pixel), widest first, each as a media condition and a length.
 */
function toSizes(slotPx: (viewportPx: number) => number): string {
  const low = 320;
  const high = 2560;
  const slot = (viewport: number) => widths[viewport - low];
  const widths = Array.from({ length: high - low + 1 }, (_, index) => slotPx(low + index));
  const pieces: string[] = [];
  let end = high;
  while (end >= low) {
    // Grow the piece downwards while each width stays on the line through its upper end.
    const slope = end > low ? slot(end) - slot(end - 1) : 0;
    let start = end;
    while (
      start - 1 >= low &&
      Math.abs(slot(start - 1) - (slot(end) - slope * (end - start + 1))) <= 0.5
    ) {
      start--;
    }
    const vw = Math.round(slope * 1000) / 10;
    const px = Math.ceil(slot(end) - slope * end);
    const length = Math.abs(vw) < 0.1
      ? `${Math.ceil(slot(end))}px`
      : px === 0
      ? `${vw}vw`
      : `calc(${vw}vw ${px < 0 ? "-" : "+"} ${Math.abs(px)}px)`;
    pieces.push(start <= low ? length : `(min-width: ${start}px) ${length}`);
    end = start - 1;
  }
  return pieces.join(", ");
}

/** Where pictures stand in the stylesheet's grid, and the `sizes` of each place. */
export interface PictureSizes {
  /** The wide column: a case study's hero. */
  wide: string;
  /** A card of the grid of work (auto-fill columns of at least `grid.cardMin`). */
  card: string;
  /** A gallery of 1, 2, 3… pictures (auto-fit columns of at least `grid.galleryMin`), by count. */
  gallery: string[];
}

/**
 * The `sizes` of the pictures, from the tokens that size the stylesheet's grid (see
 * lib/site/style/site.css: `main`'s wide column is `min(wide, 100% - 2 × gutter)`; the work grid
 * and the gallery are `repeat(auto-fill | auto-fit, minmax(min(100%, min), 1fr))` with a gap of
 * `--space-m`).
 *
 * @param tokens The checked tokens.
 * @returns `sizes` for each place a picture stands.
 */
export function buildPictureSizes(tokens: DesignTokens): PictureSizes {
  const { type, grid } = tokens;
  const gapFactor = tokens.space.m ?? 1.5;
  const gap = fluid(toRem(type.min.size) * gapFactor, toRem(type.max.size) * gapFactor, tokens);
  const wide = (viewport: number) =>
    Math.min(
      evaluateLength(grid.wide, viewport),
      viewport - 2 * evaluateLength(grid.gutter, viewport),
    );
  const column = (min: string, items = Infinity) => (viewport: number) => {
    const container = wide(viewport);
    const gapPx = evaluateLength(gap, viewport);
    const minPx = Math.min(container, evaluateLength(min, viewport));
    const count = Math.max(1, Math.min(items, Math.floor((container + gapPx) / (minPx + gapPx))));
    return (container - (count - 1) * gapPx) / count;
  };
  const galleryMin = grid.galleryMin ?? DEFAULT_GALLERY_MIN;
  return {
    wide: toSizes(wide),
    card: toSizes(column(grid.cardMin ?? DEFAULT_CARD_MIN)),
    gallery: [1, 2, 3, 4].map((items) => toSizes(column(galleryMin, items))),
  };
}

/** The Latin subset's code points (as Fontsource cuts it). */
const LATIN_RANGE =
  "U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD";

/**
 * Builds the stylesheet: the font faces (the web font and its metric-matched fallback), the
 * tokens as custom properties (the dark scheme's under `prefers-color-scheme: dark`), then the
 * rules, compiled by lightningcss.
 *
 * @param tokens The checked tokens. @param rules The rules' CSS (`lib/site/style/*.css`, then a studio's own `content/style/site.css`).
 * @returns The minified stylesheet.
 */
export function buildStylesheet(tokens: DesignTokens, rules: string): string {
  const { font, type } = tokens;
  const fallbackName = `${font.family} fallback`;
  const steps = type.steps.map((step) => {
    const min = toRem(type.min.size) * type.min.ratio ** step;
    const max = toRem(type.max.size) * type.max.ratio ** step;
    return `--step-${step}: ${fluid(min, max, tokens)};`;
  });
  const spaces = Object.entries(tokens.space).map(([name, factor]) =>
    `--space-${name}: ${
      fluid(toRem(type.min.size) * factor, toRem(type.max.size) * factor, tokens)
    };`
  );
  const radii = Object.entries(tokens.radius).map(([name, value]) => `--radius-${name}: ${value};`);
  const source = [
    `@font-face { font-family: "${font.family}"; font-style: normal; font-weight: ${font.weight}; font-display: swap; src: url("/assets/${font.file}") format("woff2"); unicode-range: ${LATIN_RANGE}; }`,
    `@font-face { font-family: "${fallbackName}"; src: ${
      font.fallback.local.map((name) => `local("${name}")`).join(", ")
    }; size-adjust: ${font.fallback.sizeAdjust}; ascent-override: ${font.fallback.ascentOverride}; descent-override: ${font.fallback.descentOverride}; line-gap-override: ${font.fallback.lineGapOverride}; }`,
    ":root {",
    colorProperties(tokens.colors.light),
    `--font-body: "${font.family}", "${fallbackName}", system-ui, sans-serif;`,
    `--font-mono: ${font.mono};`,
    `--line-height: ${type.lineHeight};`,
    `--heading-line-height: ${type.headingLineHeight};`,
    ...steps,
    ...spaces,
    ...radii,
    `--measure: ${tokens.grid.measure};`,
    `--wide: ${tokens.grid.wide};`,
    `--gutter: ${tokens.grid.gutter};`,
    `--card-min: ${tokens.grid.cardMin ?? DEFAULT_CARD_MIN};`,
    `--gallery-min: ${tokens.grid.galleryMin ?? DEFAULT_GALLERY_MIN};`,
    "}",
    "@media (prefers-color-scheme: dark) { :root {",
    colorProperties(tokens.colors.dark),
    "} }",
    rules,
  ].join("\n");
  try {
    const result = transform({
      filename: "site.css",
      code: new TextEncoder().encode(source),
      minify: true,
      // Chrome, Edge and Firefox of early 2023, Safari 16: nesting is flattened for them.
      targets: { chrome: 110 << 16, firefox: 110 << 16, safari: 16 << 16 },
    });
    return new TextDecoder().decode(result.code);
  } catch (error) {
    throw new DesignError(`style/site.css: ${error instanceof Error ? error.message : error}`);
  }
}

/** The inner markup of an SVG (what is between its root's tags). */
function innerSvg(svg: string): { attributes: string; inner: string } {
  const match = /<svg\b([^>]*)>([\s\S]*)<\/svg>\s*$/.exec(svg.trim());
  if (!match) throw new DesignError("The logo is not an SVG document");
  const attributes = match[1].replace(/\s(?:xmlns|viewBox|width|height)="[^"]*"/g, "");
  return { attributes, inner: match[2] };
}

/** The logo drawn in `color` inside a square of `size`, on a rounded `background` tile. */
function buildIcon(logo: string, colors: SchemeColors, size: number, padding: number): string {
  const { attributes, inner } = innerSvg(logo);
  const scale = (size - 2 * padding) / 48;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size}" height="${size}"><rect width="${size}" height="${size}" rx="${
    round(size * 0.22)
  }" fill="${colors.accent}"/><g transform="translate(${padding} ${padding}) scale(${
    round(scale)
  })" color="${colors.accentText}"${attributes}>${inner}</g></svg>`;
}

/** The sharing card: the studio's mark large, on its colours, with strokes in its accent. */
function buildCard(logo: string, colors: SchemeColors): string {
  const { attributes, inner } = innerSvg(logo);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 630" width="1200" height="630"><rect width="1200" height="630" fill="${colors.background}"/><g fill="none" stroke-linecap="round"><path d="M-40 520C220 380 520 610 820 470S1140 300 1260 360" stroke="${colors.accent}" stroke-width="56"/><path d="M-40 600C260 480 560 640 860 560S1160 440 1260 470" stroke="${colors.text}" stroke-width="14"/><path d="M640 80h460M640 130h380M640 180h300" stroke="${colors.border}" stroke-width="18"/></g><g transform="translate(90 70) scale(6.4)" color="${colors.text}"${attributes}>${inner}</g></svg>`;
}

function toPng(svg: string, width: number): Uint8Array {
  return new Resvg(svg, {
    fitTo: { mode: "width", value: width },
    font: { loadSystemFonts: false },
  })
    .render().asPng();
}

/** An ICO file holding one PNG (a PNG inside an ICO is valid since Windows Vista). */
function toIco(png: Uint8Array, size: number): Uint8Array {
  const header = new Uint8Array(22);
  const view = new DataView(header.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  header[6] = size; // width
  header[7] = size; // height
  view.setUint16(10, 1, true); // colour planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, png.length, true);
  view.setUint32(18, 22, true); // offset of the image
  const ico = new Uint8Array(22 + png.length);
  ico.set(header);
  ico.set(png, 22);
  return ico;
}

/**
 * Builds the studio's look from its tokens.
 *
 * @param options The tokens, the rules' CSS, the font's bytes, the logo's SVG and the studio's
 * name and summary for the manifest.
 * @returns The assets and what the template needs.
 * @throws {DesignError} On a malformed token, a colour pair under 4.5:1 or invalid CSS.
 */
export function buildDesign(options: {
  tokens: DesignTokens;
  rules: string;
  fontBytes: Uint8Array;
  logo: string;
  name: string;
  description: string;
}): BuiltDesign {
  const { tokens, logo } = options;
  checkContrast(tokens.colors);
  const light = tokens.colors.light;
  const png = (svg: string, width: number) => toBase64(toPng(svg, width));
  const binary = (type: string, body: string) => ({ type, body, encoding: "base64" as const });
  const icon = (size: number) => buildIcon(logo, light, size, Math.round(size * 0.12));
  const manifest = {
    name: options.name,
    short_name: options.name,
    description: options.description,
    start_url: "/",
    display: "browser",
    background_color: light.background,
    theme_color: light.background,
    icons: [
      { src: "/assets/icon-192.png", sizes: "192x192", type: "image/png" },
      { src: "/assets/icon-512.png", sizes: "512x512", type: "image/png" },
      { src: "/assets/favicon.svg", sizes: "any", type: "image/svg+xml" },
    ],
  };
  return {
    assets: {
      "site.css": {
        type: "text/css; charset=utf-8",
        body: buildStylesheet(tokens, options.rules),
      },
      [tokens.font.file]: binary("font/woff2", toBase64(options.fontBytes)),
      "favicon.svg": { type: "image/svg+xml", body: icon(48) },
      "favicon.ico": binary("image/x-icon", toBase64(toIco(toPng(icon(48), 32), 32))),
      "apple-touch-icon.png": binary("image/png", png(icon(180), 180)),
      "icon-192.png": binary("image/png", png(icon(192), 192)),
      "icon-512.png": binary("image/png", png(icon(512), 512)),
      "card.png": binary("image/png", png(buildCard(logo, light), 1200)),
      "site.webmanifest": {
        type: "application/manifest+json; charset=utf-8",
        body: JSON.stringify(manifest, null, 2) + "\n",
      },
    },
    logoSvg: logo.trim(),
    font: tokens.font.file,
    themeColors: { light: light.background, dark: tokens.colors.dark.background },
    card: { name: "card.png", width: 1200, height: 630 },
  };
}
