/**
 * What the team's routes share: pages in the site's template with the desk's headers, reading a
 * form, and the guard of every desk route (a session, and on a POST the session's form token).
 * Internal to routes/.
 *
 * @module
 */
import { escapeHtml } from "../lib/mail/mail.ts";
import { isSameSecret } from "../lib/store/same_secret.ts";
import { discardBody, readBody, readMediaType } from "../lib/http/read_body.ts";
import { respond } from "../lib/http/representation.ts";
import type { HeaderPair } from "../lib/http/representation.ts";
import { HTML_SECURITY_HEADERS, HTML_TYPE } from "../lib/site/site.ts";
import { toRepresentation } from "../lib/http/representation.ts";
import type { SiteServices } from "../lib/services.ts";
import type { TeamDeskActions } from "../lib/team/desk_actions.ts";
import { DESK_WORDS } from "../lib/team/desk_words.ts";
import { renderSignInForm } from "../lib/team/render_desk.ts";
import { renderDeskTools } from "../lib/team/desk_sections.ts";
import {
  buildSessionCookie,
  forgetSession,
  readSession,
  readSessionCookie,
  type TeamSession,
} from "../lib/team/sessions.ts";
import { TEAM_PATHS, type TeamLocale, type TeamRoute } from "../lib/team/team.ts";

/**
 * The scripts of the pages that offer passkeys, in order: the WebAuthn browser library (vendored
 * at build time from `@simplewebauthn/browser`), then the page script that uses it.
 */
export const PASSKEY_SCRIPTS: readonly string[] = ["simplewebauthn-browser.js", "passkeys.js"];

/** The largest form the desk reads, in bytes: a note of 1,000 characters and the rest. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * Fields of every team page besides the site's: never indexed, never cached, and no `Referer`
 * (a link page's address holds its token; the desk's, a search).
 */
export const TEAM_PAGE_HEADERS: readonly HeaderPair[] = [
  ["X-Robots-Tag", "noindex"],
  ["Referrer-Policy", "no-referrer"],
  ["Cache-Control", "no-store"],
];

/** What the team's handlers share. */
export interface TeamPages {
  /** The site's services. */
  services: SiteServices;
  /** The desk's actions that other modules provide. */
  loadActions(): Promise<TeamDeskActions>;
  /**
   * A page in the site's template with the desk's own header (the studio, "Desk", the member and
   * signing out when there is a session; no public navigation) and the team's headers; its
   * language switch leads to the other language's desk (or to `otherLanguagePath`, e.g. the same
   * page and search there).
   */
  page(
    request: Request,
    locale: TeamLocale,
    view: {
      status: number;
      title: string;
      mainHtml: string;
      headers?: readonly HeaderPair[];
      otherLanguagePath?: string;
      /** The page runs the passkey script (the sign-in page and the passkeys' page). */
      passkeys?: boolean;
      /** The signed-in member's session: the header names the member and signs out. */
      session?: TeamSession;
    },
  ): Promise<Response>;
}

/**
 * Creates the pages' helpers.
 *
 * @param services The site's services.
 * @param loadActions Loads the desk's actions from other modules.
 */
export function createTeamPages(
  services: SiteServices,
  loadActions: () => Promise<TeamDeskActions>,
): TeamPages {
  return {
    services,
    loadActions,
    async page(request, locale, view) {
      const site = await services.site();
      const html = site.renderHtml({
        language: locale,
        title: view.title,
        description: view.title,
        mainHtml: view.mainHtml,
        otherLanguagePath: view.otherLanguagePath ?? TEAM_PATHS[locale === "pt" ? "en" : "pt"].desk,
        ...(view.passkeys ? { scripts: PASSKEY_SCRIPTS } : {}),
        workspace: {
          name: DESK_WORDS[locale].desk,
          homePath: TEAM_PATHS[locale].desk,
          ...(view.session ? { toolsHtml: renderDeskTools(locale, view.session) } : {}),
        },
      });
      // The site's fields of a page built per request, the team's replacing those they name.
      const replaced = new Set(TEAM_PAGE_HEADERS.map(([name]) => name.toLowerCase()));
      const fields: HeaderPair[] = [
        ["Content-Type", HTML_TYPE],
        ["Content-Language", site.corpus.languages[locale].tag],
        ...HTML_SECURITY_HEADERS,
      ];
      const document = toRepresentation(html, [
        ...fields.filter(([name]) => !replaced.has(name.toLowerCase())),
        ...TEAM_PAGE_HEADERS,
      ]);
      return respond(request, document, { status: view.status, headers: view.headers });
    },
  };
}

/** Whether the client reads HTML (a browser's navigation), rather than JSON or text. */
export function acceptsHtml(request: Request): boolean {
  return /\btext\/html\b/i.test(request.headers.get("Accept") ?? "");
}

/**
 * Reads a form (`application/x-www-form-urlencoded`, as browsers send it, or
 * `multipart/form-data`) of at most 16 KiB.
 *
 * @returns Its fields, or `undefined` when it is not such a form or does not arrive whole.
 */
export async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const { mediaType } = readMediaType(request);
  try {
    if (mediaType === "application/x-www-form-urlencoded") {
      const bytes = await readBody(request, MAX_FORM_BYTES);
      return new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    }
    if (mediaType === "multipart/form-data") {
      const bytes = await readBody(request, MAX_FORM_BYTES);
      const type = request.headers.get("Content-Type") ?? "";
      const form = await new Response(bytes, { headers: { "Content-Type": type } }).formData();
      const fields = new URLSearchParams();
      for (const [name, value] of form) if (typeof value === "string") fields.append(name, value);
      return fields;
    }
  } catch {
    return undefined;
  }
  discardBody(request);
  return undefined;
}

/**
 * The answer to a desk route without a session: the sign-in page for a browser (200 at the
 * desk's own address, 401 elsewhere), and 401 in plain text for other clients.
 */
export async function answerSignedOut(
  pages: TeamPages,
  request: Request,
  target: { route: TeamRoute; locale: TeamLocale },
): Promise<Response> {
  discardBody(request);
  const { locale, route } = target;
  if (!acceptsHtml(request)) {
    return new Response(`Sign in first: ${pages.services.baseUrl}${TEAM_PATHS[locale].desk}\n`, {
      status: 401,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Robots-Tag": "noindex",
      },
    });
  }
  const notice = new URL(request.url).searchParams.get("notice") === "signed-out"
    ? "signed-out" as const
    : undefined;
  return await pages.page(request, locale, {
    status: route === "desk" && request.method !== "POST" ? 200 : 401,
    title: DESK_WORDS[locale].signInTitle,
    mainHtml: renderSignInForm(locale, { notice }),
    passkeys: true,
  });
}

/**
 * The answer to a sign-in, by e-mailed link or by passkey: forgets the session the browser held,
 * if any (a planted id is never kept beside the new one), and sets the new session's cookie with
 * a redirect to the desk (303, never cached).
 *
 * @param pages The pages' helpers.
 * @param request The sign-in's POST, whose `Cookie` may name an earlier session.
 * @param signedIn The new session's id and the desk's language.
 * @returns The 303 to the desk with `Set-Cookie`.
 * @throws Whatever the store throws while forgetting the earlier session.
 */
export async function answerSignedIn(
  pages: TeamPages,
  request: Request,
  signedIn: { sessionId: string; locale: TeamLocale },
): Promise<Response> {
  const { baseUrl } = pages.services;
  await forgetSession(pages.services, readSessionCookie(request, baseUrl));
  return new Response(null, {
    status: 303,
    headers: {
      Location: TEAM_PATHS[signedIn.locale].desk,
      "Set-Cookie": buildSessionCookie(baseUrl, signedIn.sessionId),
      "Cache-Control": "no-store",
    },
  });
}

/** A page that says something went wrong, with a link back to the desk. */
export function answerProblem(
  pages: TeamPages,
  request: Request,
  problem: { locale: TeamLocale; status: number; text: string },
): Promise<Response> {
  const { locale, status, text } = problem;
  return pages.page(request, locale, {
    status,
    title: DESK_WORDS[locale].deskTitle,
    mainHtml: `<h1>${DESK_WORDS[locale].deskTitle}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="${
      TEAM_PATHS[locale].desk
    }">${DESK_WORDS[locale].backToDesk}</a></p>`,
  });
}

/** A desk request with its session and, for a POST, its form. */
export interface DeskRequest {
  request: Request;
  locale: TeamLocale;
  session: TeamSession;
  /** The POST's fields (empty for a GET). */
  form: URLSearchParams;
}

/**
 * Guards a desk route: without a good session, the sign-in page or 401; a POST must be a form
 * that carries the session's form token (else 400 or 403, and nothing is done).
 *
 * @param pages The pages' helpers.
 * @param target The route and its language.
 * @param handle Answers a request that passed.
 */
export function withSession(
  pages: TeamPages,
  target: { route: TeamRoute; locale: TeamLocale },
  handle: (desk: DeskRequest) => Promise<Response>,
): (request: Request) => Promise<Response> {
  const { locale } = target;
  const words = DESK_WORDS[locale];
  return async (request) => {
    const { services } = pages;
    let session: TeamSession | undefined;
    try {
      session = await readSession(services, readSessionCookie(request, services.baseUrl));
    } catch (error) {
      discardBody(request);
      services.logger.error("Team session could not be read", { error: String(error) });
      return answerProblem(pages, request, { locale, status: 503, text: words.busy });
    }
    if (!session) return answerSignedOut(pages, request, target);
    if (request.method !== "POST") {
      return handle({ request, locale, session, form: new URLSearchParams() });
    }
    const form = await readForm(request);
    if (!form) return answerProblem(pages, request, { locale, status: 400, text: words.badForm });
    if (!isSameSecret(session.formToken, form.get("form_token") ?? "")) {
      return answerProblem(pages, request, { locale, status: 403, text: words.formExpired });
    }
    return handle({ request, locale, session, form });
  };
}
