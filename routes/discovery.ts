/**
 * Discovery documents: `GET /openapi.json` (OpenAPI 3.1) and `GET /.well-known/api-catalog`
 * (RFC 9727, a linkset of RFC 9264: the REST API and the MCP endpoint).
 *
 * @module
 */
import { toBareAddress } from "../lib/mail/mail.ts";
import {
  API_BASE_PATH,
  API_CATALOG_PATH,
  API_CATALOG_TYPE,
  API_DOCS_PATH,
  API_REFERENCE_PATHS,
  MCP_PATH,
  MCP_SERVER_CARD_PATH,
  MCP_SERVER_CARD_TYPE,
  OPENAPI_PATH,
  OPENAPI_TYPE,
} from "../lib/contract/contract.ts";
import { DISCOVERY_CACHE, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import { formatLink } from "../lib/http/versioning.ts";
import { loadOnce, once } from "../lib/load_once.ts";

/**
 * Builds the API catalog: two linkset contexts. The REST API, with its `service-desc` (the
 * OpenAPI document), `service-doc` (the page for software and agents) and `status` (the health
 * endpoint); and the MCP endpoint, with its server card as `service-desc` (the OpenAPI document
 * stays the REST contract and does not describe `/mcp`) and the same page as `service-doc`.
 *
 * @param baseUrl The public origin.
 * @returns The linkset JSON document (RFC 9264, section 4.2).
 */
export function buildApiCatalog(baseUrl: string): Record<string, unknown> {
  return {
    linkset: [{
      anchor: baseUrl + API_BASE_PATH,
      "service-desc": [{ href: baseUrl + OPENAPI_PATH, type: OPENAPI_TYPE }],
      "service-doc": [
        { href: baseUrl + API_REFERENCE_PATHS.en, type: "text/html", hreflang: ["en"] },
        { href: baseUrl + API_REFERENCE_PATHS.pt, type: "text/html", hreflang: ["pt-PT"] },
        { href: baseUrl + API_DOCS_PATH, type: "text/html" },
      ],
      status: [{ href: baseUrl + API_BASE_PATH + "/health", type: "application/json" }],
    }, {
      anchor: baseUrl + MCP_PATH,
      "service-desc": [{ href: baseUrl + MCP_SERVER_CARD_PATH, type: MCP_SERVER_CARD_TYPE }],
      "service-doc": [{ href: baseUrl + API_DOCS_PATH, type: "text/html" }],
    }],
  };
}

/**
 * The handlers of the discovery documents (`/openapi.json` and the API catalog, entries of
 * `routes/mod.ts`); both are built once and served from memory.
 *
 * @param services The resolved services.
 * @returns The handlers of the OpenAPI document and of the API catalog.
 */
export function createDiscovery(
  services: Services,
): { openApi: RouteHandlers; apiCatalog: RouteHandlers } {
  // Prepared once, by the first request for it (not at start-up, which stays short), with a
  // strong ETag (304 on If-None-Match) and an hour of caching, like every other document;
  // readable from every origin.
  const document = loadOnce(async () => {
    const { buildOpenApiDocument } = await import("../lib/contract/openapi.ts");
    return toRepresentation(
      JSON.stringify(buildOpenApiDocument({
        baseUrl: services.baseUrl,
        policies: services.policies,
        timeZone: services.schedule.timeZone,
        meetingMinutes: services.schedule.meetingMinutes,
        contactEmail: toBareAddress(services.mail.inbox),
      })),
      [["Content-Type", OPENAPI_TYPE], ["Cache-Control", DISCOVERY_CACHE]],
    );
  });
  const catalog = once(() =>
    toRepresentation(JSON.stringify(buildApiCatalog(services.baseUrl)), [
      ["Content-Type", API_CATALOG_TYPE],
      ["Cache-Control", DISCOVERY_CACHE],
      ["Link", formatLink(services.baseUrl + API_CATALOG_PATH, "api-catalog")],
    ])
  );
  return {
    openApi: { handle: async (request) => respond(request, await document()) },
    apiCatalog: { handle: (request) => respond(request, catalog()) },
  };
}
