/**
 * The sharing cards: one 1200×630 picture per page (`og:image`), drawn at build time in the
 * studio's style from the page's title and description, with the studio's logo and name, on the
 * light scheme's colours and in the font the tokens name (`font.card`: static WOFF cuts, which
 * satori reads; it lays out the text and turns it into paths). resvg renders the SVG and sharp
 * encodes a palette PNG (chat apps take PNG or JPEG; a palette keeps a flat card near 15 KB).
 *
 * @module
 */
import type { SchemeColors } from "./build_design.ts";
import { toBase64 } from "./_generated_module.ts";

/** A card's size, in pixels (Open Graph's recommended 1.91:1). */
export const CARD_SIZE = { width: 1200, height: 630 } as const;

/** What a card shows. */
export interface CardContent {
  /** The studio's name. */
  name: string;
  /** A short line beside the name: the section, or a case study's client and year. */
  kicker: string;
  /** The page's title. */
  title: string;
  /** The page's description. */
  description: string;
  /** The logo's SVG, drawn in `currentColor`. */
  logo: string;
  /** The colours. */
  colors: SchemeColors;
  /** The font family's name. */
  family: string;
}

/** An element of satori's tree (React's shape, without React). */
export interface CardElement {
  type: string;
  props: {
    style?: Record<string, string | number>;
    children?: string | CardElement | CardElement[];
    src?: string;
    width?: number;
    height?: number;
  };
}

/** The fonts of a card: static cuts of one family, as WOFF, TTF or OTF bytes. */
export interface CardFonts {
  regular: Uint8Array;
  bold: Uint8Array;
}

function element(
  type: string,
  style: Record<string, string | number>,
  children?: string | CardElement | CardElement[],
): CardElement {
  return { type, props: { style, ...(children === undefined ? {} : { children }) } };
}

function toDataUri(svg: string): string {
  return `data:image/svg+xml;base64,${toBase64(new TextEncoder().encode(svg))}`;
}

/** The text cut at a word so it keeps within `length` characters (two lines of the card). */
function shorten(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length - 1);
  return `${cut.slice(0, cut.lastIndexOf(" ")).replace(/[,;:.]$/, "")}…`;
}

/** The title's size in pixels: smaller as it grows, so three lines fit at most. */
function titleSize(title: string): number {
  return title.length <= 34 ? 84 : title.length <= 60 ? 68 : 56;
}

/**
 * The card's tree for satori: the logo, name and kicker at the top; the title large and the
 * description under it; the accent's strokes from the site-wide card at the right edge.
 *
 * @param content What the card shows.
 * @returns satori's element tree, plain data (its JSON is part of the card's key).
 */
export function buildCardTree(content: CardContent): CardElement {
  const { colors } = content;
  const logo = content.logo.replace(/currentColor/g, colors.text);
  const strokes =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 630" width="360" height="630"><g fill="none" stroke-linecap="round"><path d="M420 40C300 120 380 260 250 330S60 470 140 690" stroke="${colors.accent}" stroke-width="44"/><path d="M440 120C340 200 420 320 320 400S170 540 230 690" stroke="${colors.text}" stroke-width="10"/></g></svg>`;
  const head: CardElement[] = [
    { type: "img", props: { src: toDataUri(logo), width: 60, height: 60 } },
    element("div", { marginLeft: 18, fontWeight: 600 }, content.name),
  ];
  if (content.kicker) {
    head.push(element("div", { marginLeft: 14, color: colors.muted }, `· ${content.kicker}`));
  }
  return element("div", {
    width: CARD_SIZE.width,
    height: CARD_SIZE.height,
    display: "flex",
    backgroundColor: colors.background,
    color: colors.text,
    fontFamily: content.family,
  }, [
    {
      type: "img",
      props: {
        src: toDataUri(strokes),
        width: 360,
        height: 630,
        style: { position: "absolute", right: 0, top: 0 },
      },
    },
    element("div", {
      position: "absolute",
      left: 80,
      top: 64,
      display: "flex",
      alignItems: "center",
      fontSize: 32,
    }, head),
    element("div", {
      position: "absolute",
      left: 80,
      bottom: 64,
      display: "flex",
      flexDirection: "column",
      width: 820,
    }, [
      element("div", {
        fontSize: titleSize(content.title),
        fontWeight: 600,
        lineHeight: 1.06,
        letterSpacing: -1.5,
      }, content.title),
      element("div", {
        marginTop: 24,
        fontSize: 28,
        lineHeight: 1.4,
        color: colors.muted,
      }, shorten(content.description, 110)),
    ]),
  ]);
}

/**
 * Draws a card: satori lays it out into SVG, resvg renders it, sharp encodes a palette PNG.
 *
 * @param tree The card's tree. @param fonts The family's static cuts. @param family Its name.
 * @returns The PNG's bytes, 1200×630.
 */
export async function renderCard(
  tree: CardElement,
  fonts: CardFonts,
  family: string,
): Promise<Uint8Array> {
  const [{ default: satori }, { Resvg }, { default: sharp }] = await Promise.all([
    import("satori"),
    import("@resvg/resvg-js"),
    import("sharp"),
  ]);
  const svg = await satori(tree as unknown as Parameters<typeof satori>[0], {
    ...CARD_SIZE,
    fonts: [
      { name: family, data: fonts.regular.slice().buffer, weight: 400, style: "normal" },
      { name: family, data: fonts.bold.slice().buffer, weight: 600, style: "normal" },
    ],
  });
  const png = new Resvg(svg, {
    fitTo: { mode: "width", value: CARD_SIZE.width },
    font: { loadSystemFonts: false },
  }).render().asPng();
  return new Uint8Array(
    await sharp(png).png({ palette: true, quality: 90, effort: 10, compressionLevel: 9 })
      .toBuffer(),
  );
}
