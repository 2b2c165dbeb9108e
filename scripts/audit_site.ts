/**
 * Audits the site as people, agents and checkers see it, and prints one table:
 *
 * - Lighthouse (npm `lighthouse`, Debian's Chromium with WebMCP's testing feature), mobile, on
 *   the home page, the work index, one case study, the contact page, the booking page and the API
 *   reference:
 *   performance, accessibility, best practices, SEO, bytes transferred and layout shift; and on
 *   the contact and booking pages, whose forms are WebMCP tools, the Agentic Browsing category
 *   (the accessibility tree, the WebMCP forms and their schemas, llms.txt, the AI catalog);
 * - axe-core in Chromium on every page of both languages (the API reference's included) at 390 and
 *   1440 px, light and dark;
 * - the Nu HTML Checker (npm `vnu-jar`, Java from Debian) on every page: errors and warnings.
 *
 * It starts the real service on a free loopback port with a store in a temporary folder.
 * Usage: `deno task audit:site [--no-lighthouse] [--no-nu] [--no-axe]`. Exits 1 when axe or Nu
 * finds anything, a Lighthouse category is under 100, or an audit of Agentic Browsing fails.
 *
 * @module
 */
import { API_REFERENCE_PATHS } from "../lib/contract/contract.ts";
import { WEBMCP_NU_FILTER } from "../lib/site/webmcp.ts";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { findFreePort } from "../tests/e2e/_server.ts";
import { CORPUS } from "../build/corpus.generated.ts";

const CHROMIUM = "/usr/bin/chromium";
/**
 * Lighthouse 13 (it needs Node 22, which npx brings): its robots.txt audit knows the
 * `Content-Signal` lines the site declares (12.x counted them as unknown directives, SEO 92).
 */
const LIGHTHOUSE = ["-p", "node@22", "-p", "lighthouse@13.5.0", "lighthouse"];
const VNU = "vnu-jar@26.9.27";
/** The categories every audited page must score 100 in. */
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
/** Lighthouse 13's category of what agents in the browser rely on. */
const AGENTIC = "agentic-browsing";
/** The pages whose forms are WebMCP tools: the Agentic Browsing category is audited there. */
const AGENTIC_PATHS: ReadonlySet<string> = new Set(["/en/contact", "/en/book"]);

/** A Lighthouse report, as far as this script reads it. */
interface LighthouseReport {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string }> }>;
  audits: Record<
    string,
    { score: number | null; scoreDisplayMode: string; numericValue?: number; title: string }
  >;
}

/**
 * The scored audits of a category (not informative, manual or not applicable), each as its id
 * and score, and those of them that fail: every scored audit must score 1.
 */
function readScoredAudits(
  report: LighthouseReport,
  category: string,
): { scored: string[]; failed: string[] } {
  const scored = report.categories[category].auditRefs.map(({ id }) => ({
    id,
    ...report.audits[id],
  })).filter((audit) =>
    !["informative", "manual", "notApplicable"].includes(audit.scoreDisplayMode) &&
    audit.score !== null
  );
  return {
    scored: scored.map((audit) => audit.id),
    failed: scored.filter((audit) => (audit.score ?? 0) < 1).map((audit) =>
      `${audit.id} ${audit.score}`
    ),
  };
}

/**
 * Books the first free time through the English booking page's form, as a browser without
 * JavaScript does, and returns the signed links of the booking's page (the form's `303`) and of its
 * reschedule page (which the booking's page links to): Lighthouse audits those pages too, each
 * reached the way an attendee reaches it (the link's `303` to its page, with its cookie).
 *
 * @param origin The service's origin.
 * @returns The two links' paths with their queries.
 * @throws {Error} When no time is free in this month or the next, or an answer is not the one
 * expected.
 */
async function bookThroughForm(origin: string): Promise<string[]> {
  let start: string | undefined;
  for (let ahead = 0; ahead < 2 && !start; ahead++) {
    const month = Temporal.Now.plainDateISO().toPlainYearMonth().add({ months: ahead });
    const listing = await (await fetch(`${origin}/api/v1/booking/slots?month=${month}`)).json();
    start = Object.values(listing.slots as Record<string, Array<{ start: string }>>).flat()[0]
      ?.start;
  }
  if (!start) throw new Error("No free time this month or the next to book for the audit");
  const form = await (await fetch(`${origin}/en/book`)).text();
  const idempotency = /name="idempotency" value="([^"]+)"/.exec(form)?.[1] ?? "";
  const booked = await fetch(`${origin}/en/book`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: origin },
    body: new URLSearchParams({
      start,
      name: "Ana Sousa",
      email: "ana@example.com",
      topic: "A new website for our bakery",
      idempotency,
    }),
  });
  await booked.body?.cancel();
  const view = booked.headers.get("Location");
  if (booked.status !== 303 || !view) throw new Error(`The booking form answered ${booked.status}`);
  const exchange = await fetch(new URL(view, origin), { redirect: "manual" });
  await exchange.body?.cancel();
  const cookie = (exchange.headers.get("Set-Cookie") ?? "").split(";")[0];
  const page = await (await fetch(new URL(exchange.headers.get("Location") ?? view, origin), {
    headers: { Cookie: cookie },
  })).text();
  const reschedule = /href="([^"]*\/booking\/reschedule\?[^"]+)"/.exec(page)?.[1];
  if (!reschedule) throw new Error("The booking's page has no reschedule link");
  const toPath = (link: string) => {
    const url = new URL(link.replaceAll("&amp;", "&"), origin);
    return url.pathname + url.search;
  };
  return [toPath(view), toPath(reschedule)];
}

const skip = (name: string) => Deno.args.includes(`--no-${name}`);

const folder = await mkdtemp(join(tmpdir(), "studio-audit-"));
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const service = new Deno.Command(Deno.execPath(), {
  args: ["run", "--allow-all", "--quiet", "main.ts"],
  cwd: new URL("../", import.meta.url),
  env: {
    PORT: String(port),
    HOST: "127.0.0.1",
    STUDIO_BASE_URL: origin,
    STUDIO_KV_PATH: join(folder, "audit.kv"),
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: "inbox@studio.example",
  },
  stdout: "null",
  stderr: "null",
}).spawn();

const rows: string[][] = [];
let failed = false;
try {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const response = await fetch(origin + "/api/v1/health");
      await response.body?.cancel();
      if (response.ok) break;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The content's pages, and the API reference's, which the service renders in the site's look.
  const paths = [...CORPUS.pages.map((page) => page.path), ...Object.values(API_REFERENCE_PATHS)];

  if (!skip("lighthouse")) {
    const caseStudy = CORPUS.pages.find((page) => page.layout === "case" && page.language === "en");
    const audited = [
      "/en",
      "/en/work",
      caseStudy?.path ?? "/en/work",
      "/en/contact",
      "/en/book",
      API_REFERENCE_PATHS.en,
      // The booking's page and its reschedule page, behind their e-mails' signed links.
      ...await bookThroughForm(origin),
    ];
    for (const path of audited) {
      const output = join(folder, "lighthouse.json");
      const agentic = AGENTIC_PATHS.has(path);
      // A signed link's signature stays out of the table.
      const label = path.replace(/([?&])sig=[^&]*/, "$1sig=…");
      const run = await new Deno.Command("npx", {
        args: [
          "-y",
          ...LIGHTHOUSE,
          origin + path,
          "--quiet",
          "--output=json",
          `--output-path=${output}`,
          `--only-categories=${[...CATEGORIES, ...(agentic ? [AGENTIC] : [])].join(",")}`,
          // WebMCP's testing feature lets Lighthouse read the tools the page declares.
          '--chrome-flags="--headless=new --no-sandbox --enable-features=WebMCPTesting"',
        ],
        env: { CHROME_PATH: CHROMIUM },
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!run.success) {
        rows.push([
          `Lighthouse mobile ${label}`,
          "failed: " + new TextDecoder().decode(run.stderr),
        ]);
        failed = true;
        continue;
      }
      const report: LighthouseReport = JSON.parse(await readFile(output, "utf8"));
      const score = (id: string) => Math.round((report.categories[id].score ?? 0) * 100);
      const scores = CATEGORIES.map(score);
      if (scores.some((value) => value < 100)) failed = true;
      const numeric = (id: string) => report.audits[id].numericValue ?? 0;
      rows.push([
        `Lighthouse mobile ${label}`,
        `perf ${scores[0]} · a11y ${scores[1]} · bp ${scores[2]} · seo ${scores[3]} · ${
          (numeric("total-byte-weight") / 1024).toFixed(1)
        } KiB · LCP ${(numeric("largest-contentful-paint") / 1000).toFixed(2)} s · CLS ${
          numeric("cumulative-layout-shift").toFixed(3)
        }`,
      ]);
      if (agentic) {
        const { scored, failed: failures } = readScoredAudits(report, AGENTIC);
        if (failures.length || score(AGENTIC) < 100) failed = true;
        rows.push([
          `Lighthouse Agentic Browsing ${path}`,
          `${score(AGENTIC)} · ${
            scored.length - failures.length
          } of ${scored.length} scored audits pass${
            failures.length ? `; failed: ${failures.join(", ")}` : ""
          }`,
        ]);
      }
    }
  }

  if (!skip("axe")) {
    const axe = await readFile(
      createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
      "utf8",
    );
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless=new", "--no-sandbox"],
    });
    try {
      for (const width of [390, 1440]) {
        for (const colorScheme of ["light", "dark"] as const) {
          const context = await browser.newContext({
            viewport: { width, height: 900 },
            colorScheme,
            bypassCSP: true,
          });
          const page = await context.newPage();
          const found: string[] = [];
          for (const path of paths) {
            await page.goto(origin + path, { waitUntil: "load" });
            await page.addScriptTag({ content: axe });
            const ids = await page.evaluate(async () => {
              // @ts-ignore: axe is the script just injected
              const result = await globalThis.axe.run(document);
              return (result.violations as Array<{ id: string }>).map((item) => item.id);
            });
            for (const id of ids) found.push(`${path} ${id}`);
          }
          await context.close();
          if (found.length) failed = true;
          rows.push([
            `axe ${width} px ${colorScheme}, ${paths.length} pages`,
            found.length ? `${found.length} violations: ${found.join(", ")}` : "0 violations",
          ]);
        }
      }
    } finally {
      await browser.close();
    }
  }

  if (!skip("nu")) {
    const files: string[] = [];
    for (const [index, path] of paths.entries()) {
      const file = join(folder, `page-${index}.html`);
      await writeFile(file, await (await fetch(origin + path)).text());
      files.push(file);
    }
    const run = await new Deno.Command("npx", {
      args: [
        "-y",
        "-p",
        VNU,
        "vnu",
        "--format",
        "json",
        "--also-check-css",
        "--filterpattern",
        WEBMCP_NU_FILTER,
        ...files,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(run.stderr) || new TextDecoder().decode(run.stdout);
    let messages: Array<{ type: string; subType?: string; message: string; url: string }> = [];
    try {
      messages = JSON.parse(text).messages;
    } catch {
      rows.push(["Nu HTML Checker", `could not run: ${text.slice(0, 200)}`]);
      failed = true;
    }
    const errors = messages.filter((message) => message.type === "error");
    const warnings = messages.filter((message) => message.subType === "warning");
    if (errors.length || warnings.length) failed = true;
    const detail = [...errors, ...warnings].slice(0, 5).map((message) =>
      `${paths[Number(/page-(\d+)\.html/.exec(message.url)?.[1])]}: ${message.message}`
    );
    rows.push([
      `Nu HTML Checker, ${paths.length} pages`,
      `${errors.length} errors, ${warnings.length} warnings${
        detail.length ? ` (${detail.join("; ")})` : ""
      }`,
    ]);
  }
} finally {
  service.kill("SIGTERM");
  await service.status;
  await rm(folder, { recursive: true, force: true });
}

const width = Math.max(...rows.map(([name]) => name.length));
console.log(`| ${"Check".padEnd(width)} | Result |`);
console.log(`| ${"-".repeat(width)} | ------ |`);
for (const [name, result] of rows) console.log(`| ${name.padEnd(width)} | ${result} |`);
if (failed) Deno.exit(1);
