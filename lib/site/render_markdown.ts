/**
 * Markdown to HTML for the site's pages (npm `marked`, GitHub-flavoured Markdown), with an `id` on
 * every heading so sections can be linked to.
 *
 * @module
 */
import { Marked } from "marked";

/**
 * Builds a heading's `id` from its text: lower case, accents dropped, runs of anything else than
 * letters and digits turned into one hyphen (`Condições de pagamento` → `condicoes-de-pagamento`).
 *
 * @param text The heading's plain text.
 */
export function toSlug(text: string): string {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "section";
}

/** Inline Markdown needs no heading ids: one configured parser, never changed after this. */
const INLINE = new Marked({ gfm: true });

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escapeText = (text: string) => text.replace(/[&<>"]/g, (character) => ENTITIES[character]);

/** Options of {@linkcode renderMarkdown}. */
export interface RenderMarkdownOptions {
  /**
   * The name of code blocks: each is a focusable, labelled region, so a keyboard can scroll one
   * that overflows (WCAG 2.1.1; axe `scrollable-region-focusable`). @default {"Code"}
   */
  codeLabel?: string;
}

/**
 * Renders a Markdown document as HTML. Raw HTML in the Markdown passes through: the corpus is
 * trusted content, never user input.
 *
 * @param markdown The document.
 * @param options The name of code blocks.
 * @returns The HTML fragment.
 */
export function renderMarkdown(markdown: string, options: RenderMarkdownOptions = {}): string {
  const codeLabel = escapeText(options.codeLabel ?? "Code");
  // Heading ids are unique within one document: the slugs used so far live in this call only.
  const usedSlugs = new Set<string>();
  // Each code block is a region, and regions need names of their own: numbered, in this call.
  let codeBlocks = 0;
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth, text }) {
        // Link syntax is dropped from the text: "[Websites](/servicos/websites)" → "websites".
        const base = toSlug(text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
        let slug = base;
        for (let suffix = 2; usedSlugs.has(slug); suffix++) slug = `${base}-${suffix}`;
        usedSlugs.add(slug);
        return `<h${depth} id="${slug}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      code({ text, lang }) {
        const escaped = escapeText(text);
        const language = lang ? ` class="language-${lang.replace(/[^\w-]/g, "")}"` : "";
        return `<pre tabindex="0" role="region" aria-label="${codeLabel} ${++codeBlocks}"><code${language}>${escaped}\n</code></pre>\n`;
      },
    },
  });
  return marked.parse(markdown, { async: false });
}

/**
 * Renders one paragraph's worth of inline Markdown (links, emphasis, code) as HTML.
 *
 * @param markdown Inline Markdown.
 * @returns The HTML, without a wrapping paragraph.
 */
export function renderInlineMarkdown(markdown: string): string {
  return INLINE.parseInline(markdown, { async: false });
}
