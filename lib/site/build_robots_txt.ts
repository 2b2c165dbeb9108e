/**
 * `/robots.txt` (RFC 9309): every crawler is welcome, the AI crawlers in current use are named
 * explicitly as allowed, the site's content-use preferences are declared with `Content-Signal`
 * (contentsignals.org), and `/api/` and the MCP endpoint `/mcp` are kept out of crawling, except
 * the API's index and the MCP server card.
 *
 * @module
 */
import { API_BASE_PATH, API_PREFIX, MCP_PATH, MCP_SERVER_CARD_PATH } from "../contract/contract.ts";

/** An AI crawler named in robots.txt. */
export interface AiCrawler {
  /** Its user-agent token. */
  token: string;
  /** Who runs it. */
  operator: string;
  /** What it fetches for: model training, search and answers, or a person's request. */
  purpose: "training" | "search" | "user";
}

/** The AI crawlers in current use, by operator: all allowed (the studio wants to be found). */
export const AI_CRAWLERS: readonly AiCrawler[] = [
  { token: "GPTBot", operator: "OpenAI", purpose: "training" },
  { token: "OAI-SearchBot", operator: "OpenAI", purpose: "search" },
  { token: "ChatGPT-User", operator: "OpenAI", purpose: "user" },
  { token: "ClaudeBot", operator: "Anthropic", purpose: "training" },
  { token: "Claude-SearchBot", operator: "Anthropic", purpose: "search" },
  { token: "Claude-User", operator: "Anthropic", purpose: "user" },
  { token: "PerplexityBot", operator: "Perplexity", purpose: "search" },
  { token: "Perplexity-User", operator: "Perplexity", purpose: "user" },
  { token: "Google-Extended", operator: "Google", purpose: "training" },
  { token: "Googlebot", operator: "Google", purpose: "search" },
  { token: "Google-CloudVertexBot", operator: "Google", purpose: "user" },
  { token: "Applebot-Extended", operator: "Apple", purpose: "training" },
  { token: "Applebot", operator: "Apple", purpose: "search" },
  { token: "CCBot", operator: "Common Crawl", purpose: "training" },
  { token: "Meta-ExternalAgent", operator: "Meta", purpose: "training" },
  { token: "Meta-ExternalFetcher", operator: "Meta", purpose: "user" },
  { token: "Amazonbot", operator: "Amazon", purpose: "search" },
  { token: "bingbot", operator: "Microsoft", purpose: "search" },
  { token: "DuckAssistBot", operator: "DuckDuckGo", purpose: "user" },
  { token: "MistralAI-User", operator: "Mistral", purpose: "user" },
  { token: "cohere-ai", operator: "Cohere", purpose: "user" },
  { token: "cohere-training-data-crawler", operator: "Cohere", purpose: "training" },
  { token: "Bytespider", operator: "ByteDance", purpose: "training" },
  { token: "YouBot", operator: "You.com", purpose: "search" },
];

/**
 * The content-use preferences (contentsignals.org): appear in search results, be used as input
 * to AI answers, and be used for training. The studio wants to be found everywhere.
 */
export const CONTENT_SIGNAL = "search=yes, ai-input=yes, ai-train=yes";

/**
 * Builds robots.txt.
 *
 * @param baseUrl The public origin, for the absolute `Sitemap` line.
 * @returns The file's text.
 */
export function buildRobotsTxt(baseUrl: string): string {
  // One rule set for every group: crawl everything but the API, whose index stays readable.
  // RFC 9309 picks the longest matching rule, so "/api/v1$" and "/api$" beat "/api/".
  const rules = [
    `Content-Signal: ${CONTENT_SIGNAL}`,
    "Allow: /",
    `Allow: ${API_PREFIX}$`,
    `Allow: ${API_BASE_PATH}$`,
    `Disallow: ${API_PREFIX}/`,
    // The MCP endpoint answers POST only; its server card beside it stays readable.
    `Disallow: ${MCP_PATH}`,
    `Allow: ${MCP_SERVER_CARD_PATH}$`,
  ];
  const lines = [
    "# robots.txt: every crawler is welcome, AI crawlers included.",
    "# Pages answer in Markdown to Accept: text/markdown; see /llms.txt for an index for software.",
    "#",
    "# Content signals (https://contentsignals.org/): search=yes lets the site appear in search",
    "# results; ai-input=yes lets it be used as input to AI answers; ai-train=yes lets it be used",
    "# to train or fine-tune AI models.",
    "",
    "User-agent: *",
    ...rules,
    "",
  ];
  for (const operator of new Set(AI_CRAWLERS.map((crawler) => crawler.operator))) {
    const crawlers = AI_CRAWLERS.filter((crawler) => crawler.operator === operator);
    lines.push(
      `# ${operator}: ${
        crawlers.map((crawler) => `${crawler.token} (${crawler.purpose})`).join(", ")
      }`,
      ...crawlers.map((crawler) => `User-agent: ${crawler.token}`),
      ...rules,
      "",
    );
  }
  lines.push(`Sitemap: ${baseUrl}/sitemap.xml`, "");
  return lines.join("\n");
}
