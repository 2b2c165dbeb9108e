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
  type HeaderPair,
  type Representation,
  respond,
  toRepresentation,
} from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { FallbackHandler } from "../lib/http/create_pipeline.ts";
import type { Language } from "../lib/site/corpus.ts";
import type { Services } from "../lib/services.ts";
import type { SiteIndexPage } from "../lib/site/site_index.ts";
import type { SiteDocuments } from "../lib/site/site_documents.ts";
import { loadOnce } from "../lib/load_once.ts";
import type { FirstTouch } from "../lib/contact/first_touch.ts";
import type { BookingPage } from "./booking_form.ts";

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
  { firstTouch, readQueryAttribution, renderContactForm }: PerRequestRendering,
  site: Site,
  entry: SitePage,
  request: Request,
): Promise<Response> {
  const fromQuery = readQueryAttribution(request.url);
  const kept = await firstTouch.read(request.headers.get("Cookie"));
  const headers: HeaderPair[] = [];
  if (fromQuery && !kept) {
    headers.push([
      "Set-Cookie",
      await firstTouch.buildCookie(fromQuery, site.baseUrl.startsWith("https:")),
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

/** What the pages rendered per request need: the cookie, the contact form, the booking page. */
interface PerRequestRendering {
  firstTouch: FirstTouch;
  readQueryAttribution: typeof import("../lib/contact/first_touch.ts").readQueryAttribution;
  renderContactForm: typeof import("../lib/site/render_contact_form.ts").renderContactForm;
  bookingPage: BookingPage;
}

/**
 * What serving a page needs: the services, and the per-request rendering, whose modules (the
 * booking form, the contact form, the first-touch cookie) are imported by the first page that
 * is rendered per request: a page the build prepared loads none of them.
 */
interface PageRendering {
  services: Services;
  perRequest(): Promise<PerRequestRendering>;
}

/**
 * Answers a page: HTML, or its Markdown twin when `Accept` prefers it, as the build prepared them;
 * the booking page with the free times of the moment, and a page that shows the visitor's campaign
 * attribution, are rendered per request in the site built on first use.
 */
async function servePage(
  rendering: PageRendering,
  page: SiteIndexPage,
  request: Request,
  context: RequestContext,
): Promise<Response> {
  const { services } = rendering;
  if (context.pathname !== page.path) {
    // itty-router also matches a trailing slash: send it to the one canonical address.
    const query = request.url.indexOf("?");
    return new Response(null, {
      status: 301,
      headers: { Location: page.path + (query < 0 ? "" : request.url.slice(query)) },
    });
  }
  const [format, answers] = await Promise.all([
    services.negotiateFormat(request.headers.get("Accept")),
    services.documents().then((documents) => documents.page(page.path)),
  ]);
  if (!answers) return answerSiteFallback(services, request, context, "");
  if (format === "markdown") return respond(request, answers.markdown);
  if (format === "text") return respond(request, answers.markdown, { headers: AS_TEXT });
  const perRequest = page.layout === "booking" || request.url.includes("?") ||
    (page.layout === "contact" && request.headers.has("Cookie"));
  if (!perRequest) return respond(request, answers.html);
  const [site, perRequestRendering] = await Promise.all([services.site(), rendering.perRequest()]);
  const entry = site.pages.get(page.path);
  if (!entry) return answerSiteFallback(services, request, context, "");
  // The booking form lists the free times of the moment: rendered per request.
  if (page.layout === "booking") {
    return perRequestRendering.bookingPage.answer(site, entry, request);
  }
  return answerWithAttribution(perRequestRendering, site, entry, request);
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
async function answerSiteFallback(
  services: Services,
  request: Request,
  context: RequestContext,
  allow: string,
): Promise<Response> {
  const language = toLanguage(context.pathname);
  if (allow) {
    const site = await services.site();
    const notice = site.corpus.languages[language].text.methodNotAllowed;
    return respond(request, buildNoticePage(site, language, notice), {
      status: 405,
      headers: [["Allow", allow]],
    });
  }
  const [format, notFound] = await Promise.all([
    context.pathname.startsWith("/md/")
      ? "markdown" as const
      : services.negotiateFormat(request.headers.get("Accept")),
    services.documents().then((documents) => documents.notFound(language)),
  ]);
  if (format === "text") {
    return respond(request, notFound.markdown, { status: 404, headers: AS_TEXT });
  }
  return respond(request, notFound[format], { status: 404 });
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
 * The handlers of the site's content (their routes are entries of `routes/mod.ts`): the answers
 * the build prepared (see `Services.documents`), and the site built on first use only for what a
 * request changes.
 *
 * @param services The resolved services.
 * @returns The handlers, by document.
 */
export function createContent(services: Services): Content {
  const { documents } = services;
  const serveWith = (pick: (prepared: SiteDocuments) => Promise<Representation>) =>
    serve(async () => pick(await documents()));
  const fallback: FallbackHandler = (request, context, allow) =>
    answerSiteFallback(services, request, context, allow);
  function serve(pick: () => Promise<Representation>): RouteHandlers {
    return { handle: async (request) => respond(request, await pick()) };
  }
  const pages = new Map(services.siteIndex.pages.map((page) => [page.path, page]));
  const rendering: PageRendering = {
    services,
    perRequest: loadOnce(async (): Promise<PerRequestRendering> => {
      const [firstTouch, contactForm, bookingForm] = await Promise.all([
        import("../lib/contact/first_touch.ts"),
        import("../lib/site/render_contact_form.ts"),
        import("./booking_form.ts"),
      ]);
      return {
        firstTouch: firstTouch.createFirstTouch(),
        readQueryAttribution: firstTouch.readQueryAttribution,
        renderContactForm: contactForm.renderContactForm,
        bookingPage: bookingForm.createBookingPage(services),
      };
    }),
  };
  return {
    page: (path) => ({
      handle: (request, context) => {
        const page = pages.get(path);
        if (!page) return fallback(request, context, "");
        return servePage(rendering, page, request, context);
      },
    }),
    markdown: {
      handle: async (request, context) => {
        const path = toPagePath(context.pathname);
        const prepared = await documents();
        const answers = path === undefined ? undefined : await prepared.page(path);
        if (answers) return respond(request, answers.markdown);
        const notFound = await prepared.notFound(toLanguage(context.pathname));
        return respond(request, notFound.markdown, { status: 404 });
      },
    },
    llms: (language) => serveWith((prepared) => prepared.llms(language)),
    llmsFull: serveWith((prepared) => prepared.llmsFull()),
    sitemap: serveWith((prepared) => prepared.sitemap()),
    robots: serveWith((prepared) => prepared.robots()),
    asset: {
      handle: async (request, context) => {
        const name = context.pathname.slice("/assets/".length);
        // A picture's rendition or a sharing card: its module is imported on first request.
        const asset = await (await documents()).asset(name);
        if (!asset) return fallback(request, context, "");
        const pinned = request.url.endsWith(`?v=${asset.version}`);
        return respond(request, pinned ? asset.pinned : asset.current);
      },
    },
    rootAsset: (name) => ({
      handle: async (request) => {
        const asset = await (await documents()).asset(name);
        if (!asset) throw new Error(`No prepared asset "${name}"`);
        return respond(request, asset.current);
      },
    }),
    fallback,
  };
}
