/**
 * The API reference for people: `/en/api-reference` and `/referencia-api`, pages in the site's
 * template (its header, footer, stylesheet and design tokens, light and dark). The page itself is
 * HTML rendered from the contract: the API's description (rules of use, errors, rate limits,
 * cross-origin use, versioning) and a table of its operations, with links to the OpenAPI document
 * and the documents for software, so that it is complete without JavaScript and light on a phone.
 *
 * On request ("Open the interactive reference", or a link to one of its sections), `start.js`
 * loads Scalar's API reference (`@scalar/api-reference`, vendored by
 * scripts/build_api_reference.ts, handed in as `Services.loadApiReference` and served from this
 * origin) into the page, themed by the site's tokens (lib/site/style/api_reference.css), with no
 * web fonts, telemetry or agent, and "try it" calls to this origin only. The page relaxes the
 * site's Content-Security-Policy for styles alone (the renderer injects its style sheets and sets
 * inline styles); scripts stay `'self'`, requests stay on the origin (`connect-src 'self'`).
 *
 * @module
 */
import {
  API_REFERENCE_ASSETS_PATH,
  API_REFERENCE_PATHS,
  buildOperationSummary,
  OPENAPI_PATH,
  OPERATIONS,
} from "../lib/contract/contract.ts";
import { buildOpenApiDocument } from "../lib/contract/openapi.ts";
import { escapeHtml, toBareAddress } from "../lib/mail/mail.ts";
import { type Representation, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import type { CorpusPage, Language } from "../lib/site/corpus.ts";
import { renderMarkdown } from "../lib/site/render_markdown.ts";
import { HTML_TYPE, PAGE_CACHE, toMarkdownPath } from "../lib/site/site.ts";
import { loadOnce } from "../lib/load_once.ts";

const ASSETS = API_REFERENCE_ASSETS_PATH;

/**
 * The reference page's policy: the site's, with inline styles allowed (the renderer injects its
 * style sheets and sets `style` attributes). Scripts, fonts, pictures and requests stay on the
 * origin (`data:` pictures are the renderer's icons).
 */
export const API_REFERENCE_POLICY = "default-src 'self'; script-src 'self'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * Opens the renderer on the page when a person asks for it: the button, or a link to one of the
 * renderer's sections (a fragment the page itself does not have). It loads the vendored script,
 * then starts it on `#app` with the document and the words that `#app`'s data attributes give.
 */
const START_SCRIPT =
  `// Opens Scalar's API reference on this page on request (see routes/api_reference.ts).
const app = document.getElementById("app");
const button = document.getElementById("api-reference-open");
const status = document.getElementById("api-reference-status");
let opening;

function loadRenderer() {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = app.dataset.renderer;
    script.onload = resolve;
    script.onerror = () => reject(new Error("The renderer could not be loaded"));
    document.body.append(script);
  });
}

// The renderer draws a <main> of its own: the page's <main> becomes a region named by the title,
// and the renderer follows it, so that the document keeps one main landmark, at the top level.
function makeRoom() {
  const main = document.getElementById("main");
  const region = document.createElement("section");
  for (const { name, value } of main.attributes) region.setAttribute(name, value);
  region.setAttribute("aria-labelledby", "api-reference-title");
  region.classList.add("api-reference-region");
  const wrapper = document.createElement("div");
  wrapper.className = "api-reference-interactive";
  wrapper.append(app);
  region.append(...main.childNodes);
  main.replaceWith(region, wrapper);
  // On a phone it draws its navigation bar in a <header>, which would be a second banner beside
  // the site's: the bar is named as the reference's navigation instead, its <header> a plain box.
  new MutationObserver(() => {
    for (const bar of app.querySelectorAll(".t-doc__header:not([role])")) {
      bar.setAttribute("role", "navigation");
      bar.setAttribute("aria-label", app.dataset.label);
      bar.querySelector("header")?.setAttribute("role", "none");
    }
  }).observe(app, { childList: true, subtree: true });
}

function open() {
  opening ??= loadRenderer().then(() => {
    makeRoom();
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    Scalar.createApiReference("#app", {
      url: app.dataset.url,
      servers: [{ url: location.origin, description: app.dataset.server }],
      locale: app.dataset.locale,
      theme: "none",
      withDefaultFonts: false,
      hideDarkModeToggle: true,
      forceDarkModeState: dark ? "dark" : "light",
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
      persistAuth: false,
    });
    app.hidden = false;
    for (const element of document.querySelectorAll("[data-static]")) element.hidden = true;
    status.textContent = app.dataset.opened;
  }, (error) => {
    opening = undefined;
    status.textContent = app.dataset.failed;
    throw error;
  });
  return opening;
}

button.addEventListener("click", () => {
  button.disabled = true;
  status.textContent = app.dataset.loading;
  open().then(() => app.focus(), () => { button.disabled = false; });
});

const fragment = decodeURIComponent(location.hash.slice(1));
if (fragment && !document.getElementById(fragment)) open().catch(() => {});
`;

/** The page's words in each language (the API's own description is in English). */
const WORDS = {
  en: {
    title: "API reference",
    description:
      "The studio's public API v1: its rules of use, errors, rate limits and operations, with calls you can try.",
    document: "The OpenAPI document",
    guide: "The page for software and agents",
    guideMarkdown: "in Markdown",
    open: "Open the interactive reference",
    interactive: "Interactive reference",
    openHint:
      "Every operation with its parameters, schemas and examples, and calls you can send from this page.",
    noscript:
      "The interactive reference needs JavaScript; this page and the OpenAPI document hold the whole API.",
    loading: "Loading the interactive reference…",
    opened: "The interactive reference is open below.",
    failed: "The interactive reference could not be loaded. Try again.",
    operations: "Operations",
    method: "Method",
    path: "Path",
    summary: "What it does",
    server: "This site",
  },
  pt: {
    title: "Referência da API",
    description:
      "A API pública v1 do estúdio: regras de uso, erros, limites de pedidos e operações, com pedidos que pode experimentar.",
    document: "O documento OpenAPI",
    guide: "A página para software e agentes",
    guideMarkdown: "em Markdown",
    open: "Abrir a referência interativa",
    interactive: "Referência interativa",
    openHint:
      "Cada operação com os seus parâmetros, esquemas e exemplos, e pedidos que pode enviar desta página.",
    noscript:
      "A referência interativa precisa de JavaScript; esta página e o documento OpenAPI contêm a API inteira.",
    loading: "A carregar a referência interativa…",
    opened: "A referência interativa está aberta abaixo.",
    failed: "Não foi possível carregar a referência interativa. Tente de novo.",
    operations: "Operações",
    method: "Método",
    path: "Caminho",
    summary: "O que faz",
    server: "Este site",
  },
} as const;

type Words = typeof WORDS[Language];

const IMMUTABLE = "public, max-age=31536000, immutable";

/** The handlers of the API reference: its page in each language, and its two scripts. */
export interface ApiReference {
  /** The page in a language (`/en/api-reference`, `/referencia-api`). */
  page(language: Language): RouteHandlers;
  /** The vendored renderer's script (`standalone.js`, kept a year: its URL names its version). */
  script: RouteHandlers;
  /** The script that opens the renderer on the page (`start.js`). */
  start: RouteHandlers;
}

/**
 * The reference page as the template's page of the corpus: it has no Markdown of its own, but it
 * is indexed, with a canonical link and its translation as alternates.
 */
function toReferencePage(language: Language): CorpusPage {
  const words = WORDS[language];
  return {
    id: "api-reference",
    language,
    path: API_REFERENCE_PATHS[language],
    title: words.title,
    label: words.title,
    description: words.description,
    updated: "",
    order: 0,
    section: "agents",
    layout: "page",
    indexed: true,
    markdown: "",
  };
}

/** The links for software under the title: the OpenAPI document, llms.txt, the agents' page. */
function renderLinks(services: SiteServices, language: Language, words: Words): string {
  const guide = services.content.pages.find((page) =>
    page.section === "agents" && page.language === language
  );
  const items = [
    `<li><a href="${OPENAPI_PATH}" type="application/vnd.oai.openapi+json">${
      escapeHtml(words.document)
    }</a> (JSON)</li>`,
    `<li><a href="${language === "en" ? "/en" : ""}/llms.txt">llms.txt</a></li>`,
  ];
  if (guide) {
    items.push(
      `<li><a href="${guide.path}">${escapeHtml(words.guide)}</a> (<a href="${
        toMarkdownPath(guide.path)
      }" type="text/markdown">${escapeHtml(words.guideMarkdown)}</a>)</li>`,
    );
  }
  return `<ul class="api-reference-links">${items.join("")}</ul>`;
}

/** The table of the operations: method, canonical path and summary (the contract's words). */
function renderOperations(language: Language, words: Words, meetingMinutes: number): string {
  // The contract's summaries are English: marked so on a page in another language.
  const english = language === "en" ? "" : ' lang="en"';
  const rows = OPERATIONS.map((operation) =>
    `<tr><td><span class="method">${operation.method}</span></td><td><code>${
      escapeHtml(operation.path)
    }</code></td><td${english}>${
      escapeHtml(buildOperationSummary(operation, meetingMinutes))
    }</td></tr>`
  );
  return `<h2 id="operations">${escapeHtml(words.operations)}</h2>
<table class="api-operations">
<thead><tr><th scope="col">${escapeHtml(words.method)}</th><th scope="col">${
    escapeHtml(words.path)
  }</th><th scope="col">${escapeHtml(words.summary)}</th></tr></thead>
<tbody>${rows.join("\n")}</tbody>
</table>`;
}

/** The content of the page's `<main>`: title, links, the button, the description, the operations. */
function renderMain(
  services: SiteServices,
  language: Language,
  view: { version: string; description: string },
): string {
  const words = WORDS[language];
  return `<h1 id="api-reference-title">${escapeHtml(words.title)}</h1>
<p class="lede">${escapeHtml(words.description)}</p>
${renderLinks(services, language, words)}
<div class="api-reference-open">
<button type="button" id="api-reference-open">${escapeHtml(words.open)}</button>
<p>${escapeHtml(words.openHint)}</p>
<noscript><p>${escapeHtml(words.noscript)}</p></noscript>
<p id="api-reference-status" role="status"></p>
</div>
<div class="api-reference-summary" data-static>
<div lang="en">
${renderMarkdown(view.description)}
</div>
${renderOperations(language, words, services.schedule.meetingMinutes)}
</div>
<div id="app" tabindex="-1" hidden data-url="${OPENAPI_PATH}" data-locale="${language}" data-renderer="${ASSETS}/standalone.js?v=${
    encodeURIComponent(view.version)
  }" data-server="${escapeHtml(words.server)}" data-label="${
    escapeHtml(words.interactive)
  }" data-loading="${escapeHtml(words.loading)}" data-opened="${
    escapeHtml(words.opened)
  }" data-failed="${escapeHtml(words.failed)}"></div>
<script src="${ASSETS}/start.js" defer></script>`;
}

/**
 * The handlers of the API reference pages and their scripts (their routes are entries of
 * `routes/mod.ts`).
 *
 * @param services The site's services.
 * @returns The handlers.
 */
export function createApiReference(services: SiteServices): ApiReference {
  // The renderer is megabytes of script: loaded, and its entity tag computed, by the first
  // request for a reference page or the script, once for the handler's lifetime.
  const loadScript = loadOnce(async () => {
    const { version, script } = await services.loadApiReference();
    return {
      version,
      representation: toRepresentation(script, [
        ["Content-Type", "text/javascript; charset=utf-8"],
        ["Cache-Control", IMMUTABLE],
      ]),
    };
  });
  const start = toRepresentation(START_SCRIPT, [
    ["Content-Type", "text/javascript; charset=utf-8"],
    ["Cache-Control", "public, max-age=3600"],
  ]);
  // The API's description, as the OpenAPI document gives it (with this deployment's quotas).
  const description = () =>
    String(
      (buildOpenApiDocument({
        baseUrl: services.baseUrl,
        policies: services.policies,
        timeZone: services.schedule.timeZone,
        meetingMinutes: services.schedule.meetingMinutes,
        contactEmail: toBareAddress(services.mail.inbox),
      }).info as { description: string }).description,
    );

  const page = (language: Language): RouteHandlers => {
    const build = loadOnce(async (): Promise<Representation> => {
      const [{ version }, site] = await Promise.all([loadScript(), services.site()]);
      const html = site.renderHtml({
        language,
        title: WORDS[language].title,
        description: WORDS[language].description,
        mainHtml: renderMain(services, language, { version, description: description() }),
        page: toReferencePage(language),
        translation: toReferencePage(language === "en" ? "pt" : "en"),
      });
      return toRepresentation(html, [
        ["Content-Type", HTML_TYPE],
        ["Cache-Control", PAGE_CACHE],
        ["Content-Language", services.content.languages[language].tag],
        ["Link", `<${OPENAPI_PATH}>; rel="service-desc"; type="application/vnd.oai.openapi+json"`],
        ["Content-Security-Policy", API_REFERENCE_POLICY],
        ["Referrer-Policy", "strict-origin-when-cross-origin"],
      ]);
    });
    return { handle: async (request) => respond(request, await build()) };
  };
  const pages = { en: page("en"), pt: page("pt") };
  return {
    page: (language) => pages[language],
    script: { handle: async (request) => respond(request, (await loadScript()).representation) },
    start: { handle: (request) => respond(request, start) },
  };
}
