/**
 * The site for people and agents (spec, "The site also serves content for software without
 * JavaScript"): every page as HTML, or as Markdown when `Accept` prefers it; the Markdown twins
 * under `/md/`; `/llms.txt`, `/en/llms.txt`, `/llms-full.txt`, `/sitemap.xml`, `/robots.txt` and
 * the assets; and the 404 page of unknown paths, in the path's language. Every answer is prepared
 * once (see `buildSite`), carries an `ETag` and answers `If-None-Match` with 304. None is rate
 * limited.
 *
 * @module
 */
import {
  buildNoticePage,
  type Site,
  type SitePage,
  toLanguage,
  toPagePath,
} from "../lib/site/site.ts";
import {
  buildFirstTouchCookie,
  readFirstTouch,
  readQueryAttribution,
} from "../lib/contact/first_touch.ts";
import { renderContactForm } from "../lib/site/render_contact_form.ts";
import {
  type HeaderPair,
  type Representation,
  respond,
  toRepresentation,
} from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { FallbackHandler } from "../lib/http/create_pipeline.ts";
import type { Language } from "../lib/site/corpus.ts";
import type { SiteServices } from "../lib/services.ts";
import { answerBookingPage } from "./booking_form.ts";

/** A page's Markdown sent to a client that asked for plain text. */
const AS_TEXT: readonly HeaderPair[] = [["Content-Type", "text/plain; charset=utf-8"]];

/** Headers of an answer that depends on the visitor (a cookie set or read). */
const PRIVATE: HeaderPair = ["Cache-Control", "private, no-store"];

/**
 * Answers a page's HTML with the visitor's campaign attribution: the first landing with
 * `utm_*` or `gclid` in its query sets the first-touch cookie, and a contact page fills its
 * hidden campaign fields from that cookie (or, on the first landing itself, from the query).
 */
async function answerWithAttribution(
  site: Site,
  entry: SitePage,
  request: Request,
): Promise<Response> {
  const fromQuery = readQueryAttribution(request.url);
  const kept = await readFirstTouch(request.headers.get("Cookie"));
  const headers: HeaderPair[] = [];
  if (fromQuery && !kept) {
    headers.push([
      "Set-Cookie",
      await buildFirstTouchCookie(fromQuery, site.baseUrl.startsWith("https:")),
    ]);
  }
  const attribution = kept ?? fromQuery;
  if (entry.page.layout !== "contact" || !attribution) {
    if (headers.length) headers.push(PRIVATE);
    return respond(request, entry.html, { headers });
  }
  const settings = site.corpus.languages[entry.page.language];
  const html = site.renderHtml({
    language: entry.page.language,
    title: entry.page.title,
    description: entry.page.description,
    mainHtml: entry.bodyHtml +
      renderContactForm(settings.form, entry.page.path, { attribution }, site.renderInlineMarkdown),
    page: entry.page,
    translation: entry.translation,
    markdownPath: entry.markdownPath,
  });
  const representation = toRepresentation(
    html,
    entry.html.headers.filter(([name]) => name !== "ETag"),
  );
  return respond(request, representation, { headers: [...headers, PRIVATE] });
}

async function servePage(
  services: SiteServices,
  site: Site,
  entry: SitePage,
  request: Request,
  context: RequestContext,
): Promise<Response> {
  if (context.pathname !== entry.page.path) {
    // itty-router also matches a trailing slash: send it to the one canonical address.
    const query = request.url.indexOf("?");
    return new Response(null, {
      status: 301,
      headers: { Location: entry.page.path + (query < 0 ? "" : request.url.slice(query)) },
    });
  }
  const format = await services.negotiateFormat(request.headers.get("Accept"));
  if (format === "markdown") return respond(request, entry.markdown);
  if (format === "text") return respond(request, entry.markdown, { headers: AS_TEXT });
  // The booking form lists the free times of the moment: rendered per request.
  if (entry.page.layout === "booking") return answerBookingPage(services, site, entry, request);
  if (
    request.url.includes("?") || (entry.page.layout === "contact" && request.headers.has("Cookie"))
  ) {
    return answerWithAttribution(site, entry, request);
  }
  return respond(request, entry.html);
}

/**
 * Answers an unknown path outside `/api/`: the 404 page in the path's language, as Markdown when
 * `Accept` prefers it; or, when the path exists with other methods, a 405 page with `Allow`.
 *
 * @param services The resolved services.
 * @param request The request.
 * @param context The request's context.
 * @param allow The methods the path accepts, comma-separated, or empty.
 */
export async function answerSiteFallback(
  services: SiteServices,
  request: Request,
  context: RequestContext,
  allow: string,
): Promise<Response> {
  const site = await services.site();
  const language = toLanguage(context.pathname);
  if (allow) {
    const notice = site.corpus.languages[language].text.methodNotAllowed;
    return respond(request, buildNoticePage(site, language, notice), {
      status: 405,
      headers: [["Allow", allow]],
    });
  }
  const format = context.pathname.startsWith("/md/")
    ? "markdown"
    : await services.negotiateFormat(request.headers.get("Accept"));
  if (format === "text") {
    return respond(request, site.notFound[language].markdown, { status: 404, headers: AS_TEXT });
  }
  return respond(request, site.notFound[language][format], { status: 404 });
}

/** The handlers of the site's content, by document. */
export interface Content {
  /** A page at its path: HTML, or Markdown when `Accept` prefers it. */
  page(path: string): RouteHandlers;
  /** A page's Markdown twin under `/md/`. */
  markdown: RouteHandlers;
  /** `/llms.txt` (Portuguese) and `/en/llms.txt`. */
  llms(language: Language): RouteHandlers;
  /** `/llms-full.txt`. */
  llmsFull: RouteHandlers;
  /** `/sitemap.xml`. */
  sitemap: RouteHandlers;
  /** `/robots.txt`. */
  robots: RouteHandlers;
  /** A file under `/assets/`. */
  asset: RouteHandlers;
  /** An asset also served at the root (`/favicon.ico`). */
  rootAsset(name: string): RouteHandlers;
  /** The answer to an unknown path: the 404 page, or the 405 page with `Allow`. */
  fallback: FallbackHandler;
}

/**
 * The handlers of the site's content (their routes are entries of `routes/mod.ts`). The site
 * itself is rendered on the first content request and kept (see `Services.site`), so a handler
 * that only serves the API never pays for it.
 *
 * @param services The site's services.
 * @returns The handlers, by document.
 */
export function createContent(services: SiteServices): Content {
  const fallback: FallbackHandler = (request, context, allow) =>
    answerSiteFallback(services, request, context, allow);
  const serve = (pick: (site: Site) => Representation): RouteHandlers => ({
    handle: async (request) => respond(request, pick(await services.site())),
  });
  return {
    page: (path) => ({
      handle: async (request, context) => {
        const site = await services.site();
        const entry = site.pages.get(path);
        if (!entry) return fallback(request, context, "");
        return servePage(services, site, entry, request, context);
      },
    }),
    markdown: {
      handle: async (request, context) => {
        const site = await services.site();
        const path = toPagePath(context.pathname);
        const entry = path === undefined ? undefined : site.pages.get(path);
        if (entry) return respond(request, entry.markdown);
        return respond(request, site.notFound[toLanguage(context.pathname)].markdown, {
          status: 404,
        });
      },
    },
    llms: (language) => serve((site) => site.llms[language]),
    llmsFull: serve((site) => site.llmsFull),
    sitemap: {
      handle: async (request) => respond(request, await (await services.site()).sitemap()),
    },
    robots: serve((site) => site.robots),
    asset: {
      handle: async (request, context) => {
        const site = await services.site();
        const name = context.pathname.slice("/assets/".length);
        // A picture's rendition or a sharing card: its module is imported on first request.
        const file = site.assets.has(name) ? undefined : site.files.get(name);
        const asset = site.assets.get(name) ?? await file?.load();
        if (!asset) return fallback(request, context, "");
        const pinned = request.url.endsWith(`?v=${asset.version}`);
        return respond(request, pinned ? asset.pinned : asset.current);
      },
    },
    rootAsset: (name) => ({
      handle: async (request) => {
        const asset = (await services.site()).assets.get(name);
        if (!asset) throw new Error(`No prepared asset "${name}"`);
        return respond(request, asset.current);
      },
    }),
    fallback,
  };
}
