/**
 * `deno task check:content`: checks a studio's content folder as a whole, for any studio — what a
 * studio's own CI runs on its `content/`, while the suite tests the code against fixture studios
 * of its own (tests/fixtures/studios/).
 *
 * - the build's checks: `site.yaml`'s facts and texts, every page's front matter, each page paired
 *   with its translation, the placeholders (`{{name}}`…), pictures that exist and can be read,
 *   `schedule.json` (scripts/build_content.ts);
 * - every link of every page, in both languages, HTML and Markdown twin: a path of the site must
 *   answer (a page, an asset, the API, the agents' documents), asked of the handler built on that
 *   content, as a visitor would follow it;
 * - every picture has its alternative text.
 *
 * Usage: `deno task check:content [--content <folder>]` (default `content/`); exits 1 and lists
 * each problem, naming the page, when there is one.
 *
 * @module
 */
import { buildContent, ContentError, readContentFiles } from "./build_content.ts";
import { CONTENT_FOLDER } from "./_generated_module.ts";
import { CorpusError } from "../lib/site/check_corpus.ts";
import { readSchedule } from "../lib/availability/read_schedule.ts";
import { toMarkdownPath } from "../lib/site/site.ts";
import { createHandler } from "../compose/create_handler.ts";
import { createMemoryMailer, createMemoryStore } from "../testing.ts";
import type { Corpus } from "../lib/site/corpus.ts";

/** The origin the check asks the handler at. */
const ORIGIN = "https://content-check.invalid";

/** A problem of the content: where, and what. */
export interface ContentProblem {
  /** The page's path (`/en/about`) or the file (`content/site.yaml`). */
  where: string;
  /** What is wrong. */
  problem: string;
}

/**
 * Checks a content folder: the build's checks, then every page's links and pictures.
 *
 * @param folder The content folder, absolute, with a trailing `/`.
 * @returns The problems, none when the content is whole.
 */
export async function checkContent(folder: string = CONTENT_FOLDER): Promise<ContentProblem[]> {
  let corpus: Corpus;
  let schedule;
  try {
    const files = await readContentFiles(folder);
    corpus = buildContent(files).corpus;
    const scheduleFile = files.find((file) => file.path === "schedule.json");
    schedule = scheduleFile ? readSchedule(JSON.parse(scheduleFile.text)) : undefined;
  } catch (error) {
    if (error instanceof ContentError || error instanceof CorpusError) {
      return [{ where: "content", problem: error.message }];
    }
    if ((error as { code?: string }).code === "ENOENT") {
      return [{ where: "content", problem: (error as Error).message }];
    }
    throw error;
  }
  const problems: ContentProblem[] = [];
  for (const page of corpus.pages) {
    const pictures = page.project ? [page.project.cover, ...page.project.gallery] : [];
    for (const picture of pictures) {
      if (!picture.alt.trim()) {
        problems.push({ where: page.path, problem: `picture ${picture.src} has no alt text` });
      }
    }
  }
  const store = createMemoryStore();
  try {
    const handler = createHandler({
      baseUrl: ORIGIN,
      store,
      mailer: createMemoryMailer(),
      content: corpus,
      ...(schedule ? { schedule } : {}),
      rateLimits: { read: 1_000_000 },
    });
    const built = new Set(Object.keys(corpus.files ?? {}));
    const answers = new Map<string, number>();
    const ask = async (path: string) => {
      if (!answers.has(path)) {
        const response = await handler(new Request(ORIGIN + path));
        await response.body?.cancel();
        answers.set(path, response.status);
      }
      return answers.get(path)!;
    };
    for (const page of corpus.pages) {
      for (const [format, path] of [["HTML", page.path], ["Markdown", toMarkdownPath(page.path)]]) {
        const response = await handler(new Request(ORIGIN + path));
        const body = await response.text();
        if (response.status !== 200) {
          problems.push({ where: page.path, problem: `its ${format} answers ${response.status}` });
          continue;
        }
        for (const link of findLinks(body, format === "HTML")) {
          // Files the build writes (pictures' renditions, cards, the font, the icons): their
          // sources were checked by the build.
          if (built.has(link.split("?")[0].split("/").pop()!)) continue;
          const status = await ask(link);
          if (status >= 400) {
            problems.push({
              where: page.path,
              problem: `its ${format} links to ${link}, which answers ${status}`,
            });
          }
        }
      }
    }
  } finally {
    store.close();
  }
  return problems;
}

/**
 * The site's own paths a page links to: `href` and `src` of its HTML, or the targets of its
 * Markdown links, without their fragment; other origins, `mailto:` and the like left out.
 */
function findLinks(body: string, html: boolean): string[] {
  const pattern = html ? /\s(?:href|src)="([^"]*)"/g : /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
  const links = new Set<string>();
  for (const [, raw] of body.matchAll(pattern)) {
    if (raw.startsWith("#")) continue;
    const url = new URL(raw.replaceAll("&amp;", "&"), ORIGIN + "/");
    if (url.origin === ORIGIN) links.add(url.pathname + url.search);
  }
  return [...links];
}

if (import.meta.main) {
  const problems = await checkContent();
  const name = CONTENT_FOLDER.replace(Deno.cwd() + "/", "");
  if (problems.length === 0) {
    console.log(`${name}: the content is whole`);
  } else {
    for (const { where, problem } of problems) console.error(`${where}: ${problem}`);
    console.error(`${name}: ${problems.length} problem(s)`);
    Deno.exit(1);
  }
}
