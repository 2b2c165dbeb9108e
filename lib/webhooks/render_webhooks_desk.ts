/**
 * The HTML of the desk's webhooks page (the content of `<main>`): each endpoint with its state
 * (active, or disabled by a 410 answer, with the form that enables it again) and a "Send a test
 * event" form, then the latest deliveries with their event type, time, attempts and outcome.
 * Every action is a plain form that POSTs with the session's token and works without JavaScript.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type {
  DeskDelivery,
  DeskEndpoint,
  WebhookDeskOutcome,
  WebhooksDesk,
} from "./webhooks_desk.ts";

/** What the page needs besides its data (a subset of the desk's own view). */
export interface WebhooksDeskView {
  /** The page's language. */
  locale: "pt" | "en";
  /** The zone times are shown in, e.g. the schedule's. */
  timeZone: string;
  /** The session's form token (the POST field `form_token`). */
  formToken: string;
  /** Where the forms POST: `test` sends a test event, `enable` enables an endpoint again. */
  paths: { test: string; enable: string };
  /** The outcome of the action before a redirect, to report at the top. */
  notice?: WebhookDeskOutcome;
}

const WORDS = {
  pt: {
    intlLocale: "pt-PT",
    title: "Webhooks",
    lead:
      "Eventos enviados às outras ferramentas do estúdio (Standard Webhooks 1.0), assinados com STUDIO_WEBHOOK_SECRET.",
    none:
      "Nenhum endpoint configurado: defina STUDIO_WEBHOOK_URL e STUDIO_WEBHOOK_SECRET e reinicie o serviço.",
    endpoints: "Endpoints",
    active: "Ativo",
    disabled: (at: string) => `Desativado por uma resposta 410 (Gone) em ${at}`,
    enable: "Reativar",
    test: "Enviar um evento de teste",
    deliveries: "Entregas recentes",
    noDeliveries: "Ainda nenhuma entrega.",
    columns: ["Evento", "Criado", "Endpoint", "Tentativas", "Resultado"],
    outcomes: {
      waiting: "Em espera",
      retrying: (error: string, at: string) => `A repetir (${error}); próxima às ${at}`,
      delivered: "Entregue",
      gone: "410: endpoint desativado",
      disabled: "Não enviado: endpoint desativado",
      unconfigured: "Não enviado: endpoint já não configurado",
      expired: "Desistido após 72 h de falhas",
    },
    notices: {
      queued: "Evento de teste em fila: a entrega aparece abaixo.",
      enabled: "Endpoint reativado: os próximos eventos são-lhe enviados.",
      "already-active": "O endpoint já estava ativo.",
      disabled: "O endpoint está desativado: reative-o antes de enviar um teste.",
      "not-found": "Esse endpoint não está configurado.",
    },
  },
  en: {
    intlLocale: "en-GB",
    title: "Webhooks",
    lead:
      "Events sent to the studio's other tools (Standard Webhooks 1.0), signed with STUDIO_WEBHOOK_SECRET.",
    none:
      "No endpoint is configured: set STUDIO_WEBHOOK_URL and STUDIO_WEBHOOK_SECRET and restart the service.",
    endpoints: "Endpoints",
    active: "Active",
    disabled: (at: string) => `Disabled by a 410 (Gone) answer at ${at}`,
    enable: "Enable again",
    test: "Send a test event",
    deliveries: "Recent deliveries",
    noDeliveries: "No deliveries yet.",
    columns: ["Event", "Queued", "Endpoint", "Attempts", "Outcome"],
    outcomes: {
      waiting: "Waiting",
      retrying: (error: string, at: string) => `Retrying (${error}); next at ${at}`,
      delivered: "Delivered",
      gone: "410: endpoint disabled",
      disabled: "Not sent: endpoint disabled",
      unconfigured: "Not sent: endpoint no longer configured",
      expired: "Given up after 72 h of failures",
    },
    notices: {
      queued: "Test event queued: its delivery is listed below.",
      enabled: "Endpoint enabled again: the next events are sent to it.",
      "already-active": "The endpoint was already active.",
      disabled: "The endpoint is disabled: enable it before sending a test.",
      "not-found": "That endpoint is not configured.",
    },
  },
} as const;

type Words = typeof WORDS[keyof typeof WORDS];

function formatTime(iso: string, view: WebhooksDeskView): string {
  const text = new Intl.DateTimeFormat(WORDS[view.locale].intlLocale, {
    timeZone: view.timeZone,
    dateStyle: "medium",
    timeStyle: "medium",
  }).format(new Date(Date.parse(iso)));
  const at = Temporal.Instant.from(iso).toString({ smallestUnit: "millisecond" });
  return `<time datetime="${at}">${escapeHtml(text)}</time>`;
}

/** A form that POSTs an endpoint's id with the session's token. */
function renderForm(view: WebhooksDeskView, path: string, endpointId: string, label: string) {
  return `<form method="post" action="${escapeHtml(path)}">` +
    `<input type="hidden" name="form_token" value="${escapeHtml(view.formToken)}">` +
    `<input type="hidden" name="endpoint" value="${escapeHtml(endpointId)}">` +
    `<button type="submit">${escapeHtml(label)}</button></form>`;
}

function renderEndpoint(view: WebhooksDeskView, endpoint: DeskEndpoint, words: Words): string {
  const state = endpoint.state === "active"
    ? `<p class="small">${words.active}</p>`
    : `<p class="small" role="status"><strong>${
      words.disabled(formatTime(endpoint.disabledAt ?? "", view))
    }</strong></p>`;
  const action = endpoint.state === "active"
    ? renderForm(view, view.paths.test, endpoint.id, words.test)
    : renderForm(view, view.paths.enable, endpoint.id, words.enable);
  return `<li><code>${escapeHtml(endpoint.displayUrl)}</code> <span class="small">(${
    escapeHtml(endpoint.id)
  })</span>${state}${action}</li>`;
}

function renderOutcome(view: WebhooksDeskView, delivery: DeskDelivery, words: Words): string {
  const { outcomes } = words;
  if (delivery.outcome !== "waiting") {
    const status = delivery.status ? ` (HTTP ${delivery.status})` : "";
    return escapeHtml(
      outcomes[delivery.outcome] + (delivery.outcome === "delivered" ? status : ""),
    );
  }
  if (!delivery.lastError || !delivery.nextAttemptAt) return escapeHtml(outcomes.waiting);
  return outcomes.retrying(
    escapeHtml(delivery.lastError),
    formatTime(delivery.nextAttemptAt, view),
  );
}

function renderDelivery(view: WebhooksDeskView, delivery: DeskDelivery, words: Words): string {
  const cells = [
    `<code>${escapeHtml(delivery.type)}</code>`,
    formatTime(delivery.createdAt, view),
    `<span class="small">${escapeHtml(delivery.endpointId)}</span>`,
    String(delivery.attempts),
    renderOutcome(view, delivery, words),
  ];
  // Each cell names its column (`data-label`): a phone shows the rows as stacked cards.
  return `<tr>${
    cells.map((cell, index) => `<td data-label="${escapeHtml(words.columns[index])}">${cell}</td>`)
      .join("")
  }</tr>`;
}

/**
 * Renders the desk's webhooks page.
 *
 * @param desk What `readWebhooksDesk` read: the endpoints and the latest deliveries.
 * @param view The language, zone, form token, form paths and the notice to report.
 * @returns The HTML of the page's `<main>` content.
 */
export function renderWebhooksDesk(desk: WebhooksDesk, view: WebhooksDeskView): string {
  const words = WORDS[view.locale];
  const parts = [`<h1>${words.title}</h1>`, `<p>${escapeHtml(words.lead)}</p>`];
  if (view.notice) {
    parts.push(
      `<p class="notice" role="status">${escapeHtml(words.notices[view.notice.kind])}</p>`,
    );
  }
  parts.push(`<h2>${words.endpoints}</h2>`);
  parts.push(
    desk.endpoints.length
      ? `<ul class="webhook-endpoints">${
        desk.endpoints.map((endpoint) => renderEndpoint(view, endpoint, words)).join("")
      }</ul>`
      : `<p>${escapeHtml(words.none)}</p>`,
  );
  parts.push(`<h2>${words.deliveries}</h2>`);
  parts.push(
    desk.deliveries.length
      ? `<table class="webhook-deliveries"><thead><tr>${
        words.columns.map((column) => `<th scope="col">${column}</th>`).join("")
      }</tr></thead><tbody>${
        desk.deliveries.map((delivery) => renderDelivery(view, delivery, words)).join("")
      }</tbody></table>`
      : `<p>${words.noDeliveries}</p>`,
  );
  return parts.join("\n");
}
