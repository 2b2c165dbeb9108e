/**
 * The team's desk and its sign-in, at `/equipa` and `/en/team` (paths in `TEAM_PATHS`): a member
 * asks for a link by e-mail (`POST …/ligacao`, the same answer whatever the address), opens it
 * (`GET …/entrar`, a page with one button) and signs in by its POST (the session's cookie is set
 * there, and only by POSTs); the desk's pages and actions are in `team_desk.ts`. Every page is in
 * the site's template, works without JavaScript, is never indexed, cached or in the sitemap.
 *
 * @module
 */
import { isEmailAddress } from "../lib/contract/fields.ts";
import { discardBody } from "../lib/http/read_body.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import type { TeamDeskActions } from "../lib/team/desk_actions.ts";
import { DESK_WORDS } from "../lib/team/desk_words.ts";
import { renderLinkPage, renderMessage, renderSignInForm } from "../lib/team/render_desk.ts";
import {
  checkSignInLink,
  type LinkRefusal,
  requestSignInLink,
  signIn,
} from "../lib/team/sign_in.ts";
import type { TeamLocale, TeamRoute } from "../lib/team/team.ts";
import {
  answerProblem,
  answerSignedIn,
  createTeamPages,
  readForm,
  type TeamPages,
} from "./_team_pages.ts";
import { createDeskHandlers } from "./team_desk.ts";
import { createPasskeyHandlers, type PasskeyHandlers } from "./team_passkeys.ts";

/** The statuses of refused links: 403 for a forged one, 410 for one that no longer works. */
const REFUSAL_STATUS = { forged: 403, expired: 410, used: 410, revoked: 410 } as const;

/**
 * Runs `work` in a later task of the event loop, after the answer in hand has been returned, so
 * that nothing it does adds to that answer's time.
 */
function runAfterAnswer(work: () => Promise<void>): void {
  setTimeout(() => void work(), 0);
}

/**
 * `POST …/ligacao`: asks for a link; the same page, as fast, whatever the address: a member's
 * link is stored and e-mailed only after the answer is returned.
 */
async function answerLinkRequest(
  pages: TeamPages,
  asked: { request: Request; locale: TeamLocale; clientKey: string },
): Promise<Response> {
  const { request, locale, clientKey } = asked;
  const words = DESK_WORDS[locale];
  const form = await readForm(request);
  const email = form?.get("email")?.trim() ?? "";
  if (!isEmailAddress(email) || email.length > 254) {
    return pages.page(request, locale, {
      status: 400,
      title: words.signInTitle,
      mainHtml: renderSignInForm(locale, { email: email.slice(0, 254), invalid: true }),
      passkeys: true,
    });
  }
  let outcome;
  try {
    outcome = await requestSignInLink(pages.services, { email, locale, clientKey });
  } catch (error) {
    pages.services.logger.error("Sign-in request could not be counted", { error: String(error) });
    return answerProblem(pages, request, { locale, status: 503, text: words.busy });
  }
  if (outcome.kind === "limited") {
    const seconds = String(outcome.retryAfterSeconds);
    return pages.page(request, locale, {
      status: 429,
      title: words.signInTitle,
      mainHtml: renderMessage(locale, {
        title: words.signInTitle,
        text: words.limited(seconds),
        back: "ask",
      }),
      headers: [["Retry-After", seconds]],
    });
  }
  const answer = await pages.page(request, locale, {
    status: 200,
    title: words.linkSentTitle,
    mainHtml: `<h1>${words.linkSentTitle}</h1>\n<p role="status">${words.linkSent}</p>`,
  });
  runAfterAnswer(outcome.sendLink);
  return answer;
}

/** The page of a refused link: 403 forged, 410 no longer works, and the way to ask anew. */
function answerLinkRefused(
  pages: TeamPages,
  request: Request,
  refused: { locale: TeamLocale; reason: LinkRefusal },
): Promise<Response> {
  const { locale, reason } = refused;
  const words = DESK_WORDS[locale];
  return pages.page(request, locale, {
    status: REFUSAL_STATUS[reason],
    title: words.linkPageTitle,
    mainHtml: renderMessage(locale, {
      title: words.linkPageTitle,
      text: words.refused[reason],
      back: "ask",
    }),
  });
}

/** `GET …/entrar?token&sig`: the link's page, one button; nothing is used here. */
async function answerLinkPage(
  pages: TeamPages,
  request: Request,
  locale: TeamLocale,
): Promise<Response> {
  const words = DESK_WORDS[locale];
  const query = new URL(request.url).searchParams;
  const link = { token: query.get("token") ?? "", signature: query.get("sig") ?? "" };
  let checked;
  try {
    checked = await checkSignInLink(pages.services, link);
  } catch {
    return answerProblem(pages, request, { locale, status: 503, text: words.busy });
  }
  if (checked.kind === "refused") {
    return answerLinkRefused(pages, request, { locale, reason: checked.reason });
  }
  return pages.page(request, locale, {
    status: 200,
    title: words.linkPageTitle,
    mainHtml: renderLinkPage(locale, { email: checked.record.email, ...link }),
  });
}

/** `POST …/entrar`: uses the link, and sets the new session's cookie with a redirect. */
async function answerSignIn(
  pages: TeamPages,
  request: Request,
  locale: TeamLocale,
): Promise<Response> {
  const { services } = pages;
  const words = DESK_WORDS[locale];
  const form = await readForm(request);
  if (!form) return answerProblem(pages, request, { locale, status: 400, text: words.badForm });
  const link = { token: form.get("token") ?? "", signature: form.get("sig") ?? "" };
  try {
    const outcome = await signIn(services, link);
    if (outcome.kind === "refused") {
      return await answerLinkRefused(pages, request, { locale, reason: outcome.reason });
    }
    return await answerSignedIn(pages, request, outcome);
  } catch (error) {
    services.logger.error("Team sign-in failed", { error: String(error) });
    return answerProblem(pages, request, { locale, status: 503, text: words.busy });
  }
}

/** A passkey sign-in route's answer; a failure of the store answers a 503 page. */
async function answerPasskeySignIn(
  pages: TeamPages,
  passkeys: PasskeyHandlers,
  target: { route: "passkeySignIn" | "passkeySignInOptions"; request: Request; locale: TeamLocale },
): Promise<Response> {
  const { route, request, locale } = target;
  try {
    return route === "passkeySignIn"
      ? await passkeys.signIn(request, locale)
      : await passkeys.signInOptions(request);
  } catch (error) {
    pages.services.logger.error("Passkey sign-in failed", { error: String(error) });
    return answerProblem(pages, request, { locale, status: 503, text: DESK_WORDS[locale].busy });
  }
}

/** The 429 page of the sign-in routes (counted against the write quota per client). */
function answerRateLimited(
  pages: TeamPages,
  request: Request,
  locale: TeamLocale,
  retryAfterSeconds: number,
): Promise<Response> {
  discardBody(request);
  const words = DESK_WORDS[locale];
  const seconds = String(retryAfterSeconds);
  return pages.page(request, locale, {
    status: 429,
    title: words.signInTitle,
    mainHtml: renderMessage(locale, {
      title: words.signInTitle,
      text: words.limited(seconds),
      back: "ask",
    }),
    headers: [["Retry-After", seconds]],
  });
}

/**
 * The handlers of the team's routes (their entries are in `routes/mod.ts`): the sign-in routes
 * here, the desk's in `team_desk.ts`.
 *
 * @param services The site's services.
 * @param loadActions Loads the desk's actions that other modules provide (personal data, the
 * calendar feed); see `team_desk_actions.ts`.
 * @returns A function giving the handlers of a route, by its role, method and language.
 */
export function createTeamDesk(
  services: SiteServices,
  loadActions: () => Promise<TeamDeskActions>,
): (route: TeamRoute, method: "GET" | "POST", locale: TeamLocale) => RouteHandlers {
  const pages = createTeamPages(services, loadActions);
  const passkeys = createPasskeyHandlers(pages);
  const desk = createDeskHandlers(pages, passkeys);
  return (route, method, locale) => {
    const limited = {
      answerRateLimited: (request: Request, _context: unknown, retryAfterSeconds: number) =>
        answerRateLimited(pages, request, locale, retryAfterSeconds),
    };
    if (route === "requestLink") {
      return {
        ...limited,
        handle: (request, context) =>
          answerLinkRequest(pages, { request, locale, clientKey: context.clientKey }),
      };
    }
    if (route === "signIn") {
      return method === "GET"
        ? { handle: (request) => answerLinkPage(pages, request, locale) }
        : { ...limited, handle: (request) => answerSignIn(pages, request, locale) };
    }
    if (route === "passkeySignIn" || route === "passkeySignInOptions") {
      return {
        ...limited,
        handle: (request) => answerPasskeySignIn(pages, passkeys, { route, request, locale }),
      };
    }
    return { handle: desk(route, locale) };
  };
}
