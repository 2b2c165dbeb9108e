/**
 * The team's passkeys: on the desk, a member saves one (`POST …/chave/opcoes` answers the
 * registration's options as JSON, `POST …/chave` with the browser's answer stores it, or removes
 * one) and, on the sign-in page, signs in with one (`POST …/entrar-com-chave/opcoes`, then
 * `POST …/entrar-com-chave`, which sets the new session's cookie with a redirect, as the
 * e-mailed link's POST does). The page script that runs the ceremonies is
 * `lib/site/browser/passkeys.js`; without it the e-mailed link is the way in. The WebAuthn library
 * is loaded with the first ceremony.
 *
 * @module
 */
import { discardBody } from "../lib/http/read_body.ts";
import { jsonResponse } from "../lib/http/json_response.ts";
import { loadOnce } from "../lib/load_once.ts";
import { DESK_WORDS } from "../lib/team/desk_words.ts";
import { renderMessage } from "../lib/team/render_desk.ts";
import { isCredentialId } from "../lib/team/passkey_records.ts";
import { TEAM_PATHS, type TeamLocale } from "../lib/team/team.ts";
import {
  answerProblem,
  answerSignedIn,
  type DeskRequest,
  readForm,
  type TeamPages,
} from "./_team_pages.ts";

/** A ceremony's answer is at most this long, in characters (a passkey's is about 1 KiB). */
const MAX_ANSWER_CHARACTERS = 8 * 1024;

/** JSON for the page script: never cached, never indexed. */
function answerJson(body: unknown, status = 200): Response {
  return jsonResponse(body, {
    status,
    headers: { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" },
  });
}

/** The handlers of the passkey routes. */
export interface PasskeyHandlers {
  /** `POST …/chave/opcoes`: a registration's options for the session's member. */
  registrationOptions(desk: DeskRequest): Promise<Response>;
  /** `POST …/chave`: stores a passkey (`action=register`) or removes one (`action=remove`). */
  changePasskey(desk: DeskRequest): Promise<Response>;
  /** `POST …/entrar-com-chave/opcoes`: a sign-in's options. */
  signInOptions(request: Request): Promise<Response>;
  /** `POST …/entrar-com-chave`: signs in with the browser's answer. */
  signIn(request: Request, locale: TeamLocale): Promise<Response>;
}

/** Where a passkey change leads: the desk's page of passkeys, with a notice. */
function redirectToPasskeys(locale: TeamLocale, notice: string): Response {
  return new Response(null, {
    status: 303,
    headers: {
      Location: `${TEAM_PATHS[locale].passkeys}?notice=${notice}`,
      "Cache-Control": "no-store",
    },
  });
}

/**
 * Creates the passkey routes' handlers over the team's pages.
 *
 * @param pages The pages' helpers (services, page template).
 * @returns The handlers; the desk's two run behind the session guard (see `team_desk.ts`).
 */
export function createPasskeyHandlers(pages: TeamPages): PasskeyHandlers {
  const { services } = pages;
  const loadPasskeys = loadOnce(() => import("../lib/team/passkeys.ts"));
  const readParty = async () => ({
    baseUrl: services.baseUrl,
    name: (await services.site()).corpus.name,
  });
  return {
    async registrationOptions(desk) {
      const { createRegistrationOptions } = await loadPasskeys();
      return answerJson(await createRegistrationOptions(services, await readParty(), desk.session));
    },
    async changePasskey(desk) {
      const { locale, session, form, request } = desk;
      const { registerPasskey, removePasskey } = await loadPasskeys();
      const action = form.get("action");
      const badForm = () =>
        answerProblem(pages, request, { locale, status: 400, text: DESK_WORDS[locale].badForm });
      if (action === "remove") {
        const id = form.get("id") ?? "";
        if (!isCredentialId(id)) return badForm();
        const removed = await removePasskey(services, session, id);
        return redirectToPasskeys(locale, removed ? "passkey-removed" : "not-found");
      }
      const answer = form.get("response") ?? "";
      if (action !== "register" || !answer || answer.length > MAX_ANSWER_CHARACTERS) {
        return badForm();
      }
      const outcome = await registerPasskey(services, await readParty(), session, answer);
      if (outcome.kind === "malformed") return badForm();
      return redirectToPasskeys(
        locale,
        outcome.kind === "added" ? "passkey-added" : "passkey-refused",
      );
    },
    async signInOptions(request) {
      discardBody(request);
      const { createSignInOptions } = await loadPasskeys();
      return answerJson(await createSignInOptions(services, services));
    },
    async signIn(request, locale) {
      const words = DESK_WORDS[locale];
      const form = await readForm(request);
      const answer = form?.get("response") ?? "";
      if (!answer || answer.length > MAX_ANSWER_CHARACTERS) {
        return answerProblem(pages, request, { locale, status: 400, text: words.badForm });
      }
      const { signInWithPasskey } = await loadPasskeys();
      const outcome = await signInWithPasskey(services, services, answer);
      if (outcome.kind === "malformed") {
        return answerProblem(pages, request, { locale, status: 400, text: words.badForm });
      }
      if (outcome.kind === "refused") {
        return pages.page(request, locale, {
          status: outcome.reason === "expired" ? 410 : 401,
          title: words.signInTitle,
          mainHtml: renderMessage(locale, {
            title: words.signInTitle,
            text: words.passkeyRefused[outcome.reason],
            back: "ask",
          }),
        });
      }
      return await answerSignedIn(pages, request, { sessionId: outcome.sessionId, locale });
    },
  };
}
