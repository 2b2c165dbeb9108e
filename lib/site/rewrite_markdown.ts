/**
 * Rewrites Markdown for documents read out of the site's context (the Markdown twins,
 * llms-full.txt): site-relative links made absolute, and headings shifted so that several pages
 * form one outline. Works on `marked`'s tokens, so code blocks are never touched.
 *
 * @module
 */
import { Lexer } from "marked";

/** Options of {@linkcode rewriteMarkdown}. */
export interface RewriteOptions {
  /** The public origin that site-relative links (`](/path)`) are resolved against. */
  baseUrl: string;
  /** Levels to add to every heading (capped at 6); setext headings become ATX ones. @default {0} */
  shiftHeadings?: number;
}

/**
 * Rewrites a Markdown document.
 *
 * @param markdown The document.
 * @param options The origin for links and the heading shift.
 * @returns The rewritten document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rewriteMarkdown } from "./rewrite_markdown.ts";
 *
 * const text = rewriteMarkdown("# Hi\n\nSee [work](/work).\n", {
 *   baseUrl: "https://studio.example",
 *   shiftHeadings: 2,
 * });
 * assert.equal(text, "### Hi\n\nSee [work](https://studio.example/work).\n");
 * ```
 */
export function rewriteMarkdown(markdown: string, options: RewriteOptions): string {
  const shift = options.shiftHeadings ?? 0;
  const absolute = (text: string) => text.replace(/\]\(\//g, `](${options.baseUrl}/`);
  let output = "";
  for (const token of Lexer.lex(markdown)) {
    if (token.type === "code") {
      output += token.raw;
    } else if (token.type === "heading" && shift) {
      const trailing = /\n*$/.exec(token.raw)?.[0] ?? "";
      const level = Math.min(6, token.depth + shift);
      output += `${"#".repeat(level)} ${absolute(token.text)}${trailing}`;
    } else {
      output += absolute(token.raw);
    }
  }
  return output;
}
