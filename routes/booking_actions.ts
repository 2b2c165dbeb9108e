/**
 * The pages behind the signed links of booking e-mails: `GET /booking/<action>?id=…&sig=…` shows
 * the booking and one button; only the `POST` that button sends confirms, declines or cancels, so
 * mail scanners that prefetch links change nothing.
 *
 * @module
 */
import { describeStart } from "../lib/booking/booking_mail.ts";
import { applyBookingAction, BOOKING_PREFIX } from "../lib/booking/bookings.ts";
import type { BookingRecord } from "../lib/booking/booking_mail.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import type { RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import {
  ACTION_PATH_PREFIX,
  BOOKING_ACTIONS,
  type BookingAction,
} from "../lib/booking/signed_links.ts";

type Locale = "pt" | "en";

const WORDS = {
  pt: {
    title: {
      confirm: "Confirmar conversa",
      decline: "Recusar conversa",
      cancel: "Cancelar conversa",
    },
    button: { confirm: "Confirmar", decline: "Recusar", cancel: "Cancelar a conversa" },
    done: {
      confirm: "Conversa confirmada. O convite foi enviado.",
      decline: "Pedido recusado. A pessoa foi avisada e o horário ficou livre.",
      cancel: "Conversa cancelada. O horário ficou livre e enviámos o cancelamento.",
    },
    already: {
      confirm: "Esta conversa já estava confirmada.",
      decline: "Este pedido já tinha sido recusado.",
      cancel: "Esta conversa já estava cancelada.",
    },
    notAllowed: "Esta ação já não é possível para esta conversa.",
    invalid: "Esta ligação não é válida. Use a ligação completa do e-mail.",
    missing: "Não encontrámos esta conversa.",
    busy: "Não foi possível concluir agora. Tente de novo dentro de um minuto.",
    limited: "Demasiados pedidos. Tente de novo dentro de um minuto.",
    who: "Com",
    when: "Quando",
    topic: "Tema",
  },
  en: {
    title: {
      confirm: "Confirm conversation",
      decline: "Decline conversation",
      cancel: "Cancel conversation",
    },
    button: { confirm: "Confirm", decline: "Decline", cancel: "Cancel the conversation" },
    done: {
      confirm: "Conversation confirmed. The invite has been sent.",
      decline: "Request declined. The person has been told and the time is free.",
      cancel: "Conversation cancelled. The time is free again and the cancellation has been sent.",
    },
    already: {
      confirm: "This conversation was already confirmed.",
      decline: "This request was already declined.",
      cancel: "This conversation was already cancelled.",
    },
    notAllowed: "This action is no longer possible for this conversation.",
    invalid: "This link is not valid. Use the complete link from the e-mail.",
    missing: "We could not find this conversation.",
    busy: "This could not be done right now. Please try again in a minute.",
    limited: "Too many requests. Please try again in a minute.",
    who: "With",
    when: "When",
    topic: "Topic",
  },
} as const;

function page(locale: Locale, status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="${locale === "pt" ? "pt-PT" : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font:1.05rem/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
dt{font-weight:600}button{font:inherit;padding:.6rem 1.2rem;border:2px solid #1b1b1b;background:#1b1b1b;color:#fff;border-radius:.3rem;cursor:pointer}
button:focus-visible{outline:3px solid #f2b134;outline-offset:2px}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
    },
  });
}

function details(record: BookingRecord, locale: Locale, timeZone: string): string {
  const words = WORDS[locale];
  return `<dl>
<dt>${words.who}</dt><dd>${escapeHtml(record.name)} (${escapeHtml(record.email)})</dd>
<dt>${words.when}</dt><dd>${escapeHtml(describeStart(record, locale, timeZone))}</dd>
<dt>${words.topic}</dt><dd>${escapeHtml(record.topic)}</dd>
</dl>`;
}

/** The routes of the booking action pages. */
export function bookingActionRoutes(services: Services): RouteDefinition[] {
  const { store, linkSigner, schedule } = services;

  /** The page's language: the attendee's for cancel, the studio's (Portuguese) otherwise. */
  const localeOf = (action: BookingAction, record?: BookingRecord): Locale =>
    action === "cancel" && record ? record.locale : "pt";

  async function readLink(request: Request, action: BookingAction) {
    const url = new URL(request.url);
    const id = url.searchParams.get("id") ?? "";
    const signature = url.searchParams.get("sig") ?? "";
    const valid = /^[0-9A-Z]{26}$/.test(id) && await linkSigner.verify(action, id, signature);
    return { id, valid };
  }

  function buildRoute(method: "GET" | "POST", action: BookingAction): RouteDefinition {
    return {
      method,
      path: ACTION_PATH_PREFIX + action,
      handle: async (request, context) => {
        const { id, valid } = await readLink(request, action);
        if (!valid) return page("pt", 403, WORDS.pt.title[action], `<p>${WORDS.pt.invalid}</p>`);
        let record: BookingRecord | null;
        try {
          record = (await store.get<BookingRecord>([...BOOKING_PREFIX, id])).value;
        } catch {
          return page("pt", 503, WORDS.pt.title[action], `<p>${WORDS.pt.busy}</p>`);
        }
        const locale = localeOf(action, record ?? undefined);
        const words = WORDS[locale];
        const title = words.title[action];
        if (!record) return page(locale, 404, title, `<p>${words.missing}</p>`);
        if (method === "GET") {
          const state = record.status === "pending" || record.status === "accepted"
            ? `<form method="post"><button type="submit">${words.button[action]}</button></form>`
            : `<p>${words.already[record.status === "declined" ? "decline" : "cancel"]}</p>`;
          return page(locale, 200, title, details(record, locale, schedule.timeZone) + state);
        }
        const decision = await services.rateLimiter.consume(context.clientKey, [
          services.policies.write,
        ]);
        if (decision.exceeded) return page(locale, 429, title, `<p>${words.limited}</p>`);
        let outcome;
        try {
          outcome = await applyBookingAction(services, action, id);
        } catch (error) {
          services.logger.error("Booking action failed", {
            action,
            error: error instanceof Error ? error.message : String(error),
          });
          return page(locale, 503, title, `<p>${words.busy}</p>`);
        }
        if (outcome.kind === "not-found") {
          return page(locale, 404, title, `<p>${words.missing}</p>`);
        }
        const summary = details(outcome.record, locale, schedule.timeZone);
        if (outcome.kind === "done") {
          return page(locale, 200, title, `<p role="status">${words.done[action]}</p>${summary}`);
        }
        if (outcome.kind === "already") {
          return page(
            locale,
            200,
            title,
            `<p role="status">${words.already[action]}</p>${summary}`,
          );
        }
        return page(locale, 409, title, `<p>${words.notAllowed}</p>${summary}`);
      },
    };
  }

  return BOOKING_ACTIONS.flatMap((
    action,
  ) => [buildRoute("GET", action), buildRoute("POST", action)]);
}
