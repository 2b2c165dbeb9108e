/**
 * The API reference for people: `/en/api-reference` and `/referencia-api` render
 * `/openapi.json` in the browser with Scalar's API reference (`@scalar/api-reference`, vendored
 * by scripts/build_api_reference.ts, handed in as `Services.loadApiReference` and served from
 * this origin), with no web fonts, telemetry or agent, and "try it" calls to this origin only. Its
 * page relaxes the site's Content-Security-Policy for styles alone (the renderer sets inline
 * styles); scripts stay `'self'`, requests stay on the origin (`connect-src 'self'`).
 *
 * @module
 */
import {
  API_REFERENCE_ASSETS_PATH,
  API_REFERENCE_PATHS,
  OPENAPI_PATH,
} from "../lib/contract/contract.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import { type Representation, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import { loadOnce } from "../lib/load_once.ts";

const ASSETS = API_REFERENCE_ASSETS_PATH;

/** The reference page's policy: the site's, with inline styles allowed (and fonts from data:). */
export const API_REFERENCE_POLICY = "default-src 'self'; script-src 'self'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; worker-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'; object-src 'none'";

/** Starts the renderer on the page's `#app`, reading the document's URL from it. */
const START_SCRIPT = `// Starts Scalar's API reference on this page (see routes/api_reference.ts).
const app = document.getElementById("app");
Scalar.createApiReference("#app", {
  url: app.dataset.url,
  servers: [{ url: location.origin, description: "This site" }],
  locale: app.dataset.locale,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  persistAuth: false,
});
`;

const WORDS = {
  en: {
    title: "API reference",
    description:
      "The studio's public API v1: every operation, schema and example, with calls you can try.",
    fallback: "This reference needs JavaScript. Read the API's description in",
    document: "the OpenAPI document",
    or: "or on",
    guide: "the page for software and agents",
  },
  pt: {
    title: "Referência da API",
    description:
      "A API pública v1 do estúdio: cada operação, esquema e exemplo, com pedidos que pode experimentar.",
    fallback: "Esta referência precisa de JavaScript. Leia a descrição da API",
    document: "no documento OpenAPI",
    or: "ou na",
    guide: "página para software e agentes",
  },
} as const;

const IMMUTABLE = "public, max-age=31536000, immutable";

/** The handlers of the API reference: its page in each language, and its two scripts. */
export interface ApiReference {
  /** The page in a language (`/en/api-reference`, `/referencia-api`). */
  page(language: "en" | "pt"): RouteHandlers;
  /** The vendored renderer's script (`standalone.js`, kept a year: its URL names its version). */
  script: RouteHandlers;
  /** The script that starts the renderer on the page (`start.js`). */
  start: RouteHandlers;
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

  const page = (language: "en" | "pt"): RouteHandlers => {
    const build = loadOnce(async (): Promise<Representation> => {
      const { version } = await loadScript();
      const words = WORDS[language];
      const other = language === "en" ? "pt" : "en";
      const html = `<!doctype html>
<html lang="${language === "en" ? "en" : "pt-PT"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(words.title)} — ${escapeHtml(services.content.name)}</title>
<meta name="description" content="${escapeHtml(words.description)}">
<link rel="canonical" href="${services.baseUrl}${API_REFERENCE_PATHS[language]}">
<link rel="alternate" hreflang="${other === "en" ? "en" : "pt-PT"}" href="${services.baseUrl}${
        API_REFERENCE_PATHS[other]
      }">
<link rel="service-desc" type="application/vnd.oai.openapi+json" href="${OPENAPI_PATH}">
<link rel="icon" href="data:,">
</head>
<body>
<noscript><p>${escapeHtml(words.fallback)} <a href="${OPENAPI_PATH}">${
        escapeHtml(words.document)
      }</a> ${escapeHtml(words.or)} <a href="/${language === "en" ? "en/agents" : "agentes"}">${
        escapeHtml(words.guide)
      }</a>.</p></noscript>
<div id="app" data-url="${OPENAPI_PATH}" data-locale="${language}"></div>
<script src="${ASSETS}/standalone.js?v=${encodeURIComponent(version)}"></script>
<script src="${ASSETS}/start.js"></script>
</body>
</html>
`;
      return toRepresentation(html, [
        ["Content-Type", "text/html; charset=utf-8"],
        ["Cache-Control", "public, max-age=300"],
        ["Content-Security-Policy", API_REFERENCE_POLICY],
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
