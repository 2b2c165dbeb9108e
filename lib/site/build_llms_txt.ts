/**
 * `/llms.txt`, `/en/llms.txt` and `/llms-full.txt` (the llmstxt.org format): an H1 with the
 * studio's name, a blockquote summary, free-form Markdown (the recipe for agents and the rules of
 * use), then H2 sections that are only lists of links to the Markdown twins of the pages and to
 * the API's descriptions. The full file holds the whole corpus of both languages as one outline.
 *
 * @module
 */
import {
  AGENT_SKILLS_INDEX_PATH,
  API_BASE_PATH,
  API_CATALOG_PATH,
  API_REFERENCE_PATHS,
  LLMS_FULL_PATH,
  MCP_PATH,
  MCP_SERVER_CARD_PATH,
  OPENAPI_PATH,
  toLlmsPath,
} from "../contract/contract.ts";
import { type Corpus, type CorpusPage, type Language, LANGUAGES, PAGE_SECTIONS } from "./corpus.ts";
import { rewriteMarkdown } from "./rewrite_markdown.ts";
import { toPageMarkdown } from "./render_work.ts";
import { fillBase, toMarkdownPath, toSkillPath } from "./site.ts";

/** A list item of llms.txt: `- [title](url): notes`. */
function linkItem(title: string, url: string, notes?: string): string {
  return `- [${title}](${url})${notes ? `: ${notes}` : ""}`;
}

/**
 * Builds the llms.txt of one language.
 *
 * @param corpus The corpus.
 * @param language The language of the view.
 * @param baseUrl The public origin.
 * @returns The Markdown document.
 */
export function buildLlmsTxt(corpus: Corpus, language: Language, baseUrl: string): string {
  const settings = corpus.languages[language];
  const { llms } = settings;
  const other: Language = language === "pt" ? "en" : "pt";
  const pages = corpus.pages.filter((page) => page.language === language && page.indexed);
  const lines = [
    `# ${corpus.name}`,
    "",
    `> ${settings.summary}`,
    "",
    fillBase(llms.intro, baseUrl).trim(),
    "",
  ];
  for (const section of PAGE_SECTIONS) {
    const items = pages.filter((page) => page.section === section)
      .map((page) => linkItem(page.title, baseUrl + toMarkdownPath(page.path), page.description));
    if (section === "agents") {
      items.push(
        linkItem(llms.apiLinks.openapi, baseUrl + OPENAPI_PATH),
        linkItem(llms.apiLinks.index, baseUrl + API_BASE_PATH),
        linkItem(llms.apiLinks.catalog, baseUrl + API_CATALOG_PATH),
        ...(llms.apiLinks.reference
          ? [linkItem(llms.apiLinks.reference, baseUrl + API_REFERENCE_PATHS[language])]
          : []),
      );
    }
    if (section === "optional") {
      items.push(
        linkItem(llms.apiLinks.full, baseUrl + LLMS_FULL_PATH),
        linkItem(llms.apiLinks.otherLanguage, baseUrl + toLlmsPath(other)),
      );
    }
    if (items.length) lines.push(`## ${llms.sections[section]}`, "", ...items, "");
    if (section === "agents") lines.push(...buildAgentInterfaces(corpus, language, baseUrl));
  }
  return lines.join("\n");
}

/**
 * The "Agent interfaces" section of llms.txt: the MCP server's card (the endpoint itself is named,
 * not linked: it answers only POST, and every link of llms.txt is a document an agent can fetch),
 * the Agent Skills index and each skill's SKILL.md.
 */
function buildAgentInterfaces(corpus: Corpus, language: Language, baseUrl: string): string[] {
  const titles = corpus.languages[language].llms.agentInterfaces;
  return [
    `## ${titles.heading}`,
    "",
    linkItem(
      titles.serverCard,
      baseUrl + MCP_SERVER_CARD_PATH,
      `${titles.mcp}: \`POST ${baseUrl + MCP_PATH}\``,
    ),
    linkItem(titles.skills, baseUrl + AGENT_SKILLS_INDEX_PATH),
    ...(corpus.skills ?? []).map((skill) =>
      linkItem(skill.name, baseUrl + toSkillPath(skill.name), skill.description)
    ),
    "",
  ];
}

/**
 * Builds llms-full.txt: every indexed page of both languages, Portuguese first, each in its
 * `order`, headings shifted two levels under an H2 per language, links made absolute.
 *
 * @param corpus The corpus.
 * @param baseUrl The public origin.
 * @returns The Markdown document.
 */
export function buildLlmsFullTxt(corpus: Corpus, baseUrl: string): string {
  const lines = [
    `# ${corpus.name}`,
    "",
    ...LANGUAGES.flatMap((language) => [`> ${corpus.languages[language].summary}`, ">"]).slice(
      0,
      -1,
    ),
    "",
    ...LANGUAGES.map((language) =>
      `${corpus.languages[language].llms.apiLinks.full} (${corpus.languages[language].label}).`
    ),
    "",
  ];
  for (const language of LANGUAGES) {
    lines.push(`## ${corpus.languages[language].label}`, "");
    const pages = corpus.pages.filter((page) => page.language === language && page.indexed);
    for (const page of pages) lines.push(buildFullSection(corpus, page, baseUrl), "");
  }
  return lines.join("\n").trimEnd() + "\n";
}

function buildFullSection(corpus: Corpus, page: CorpusPage, baseUrl: string): string {
  const shifted = rewriteMarkdown(toPageMarkdown(corpus, page), { baseUrl, shiftHeadings: 2 })
    .trim();
  // The page's own H1, now an H3, is its first line: the page's address follows it.
  const newline = shifted.indexOf("\n");
  const heading = newline < 0 ? shifted : shifted.slice(0, newline);
  const rest = newline < 0 ? "" : shifted.slice(newline).trim();
  return [heading, "", `<${baseUrl + page.path}>`, "", rest].join("\n").trimEnd();
}
