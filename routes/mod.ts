/**
 * The route table: every route of the API and of the site, in the order they are tried, as one
 * array that drives matching, rate limiting, the API index, `Allow` on 405 and CORS preflights.
 * The API's operations are built with the handler (a health check must not wait for a module);
 * every other route loads its handler module with its first request (`load`), so a cold start
 * that answers the API loads none of the site's modules, and the site's first page loads only
 * what that page needs. The handlers themselves live in one file per resource.
 *
 * @module
 */
import {
  AGENT_SKILLS_INDEX_PATH,
  AGENT_SKILLS_PATH,
  AI_CATALOG_PATH,
  API_CATALOG_PATH,
  API_REFERENCE_ASSETS_PATH,
  API_REFERENCE_PATHS,
  LLMS_FULL_PATH,
  LLMS_PATH,
  MCP_PATH,
  MCP_SERVER_CARD_PATH,
  MCP_WELL_KNOWN_PATHS,
  OPENAPI_PATH,
  toLlmsPath,
  WELL_KNOWN_LLMS_PATH,
} from "../lib/contract/contract.ts";
import { ACTION_PATH_PREFIX, BOOKING_ACTIONS } from "../lib/booking/signed_links.ts";
import type { FallbackHandler } from "../lib/http/create_pipeline.ts";
import type { RouteDefinition, RouteEntry, RouteHandlers } from "../lib/http/route.ts";
import type { Services, SiteServices } from "../lib/services.ts";
import { loadOnce } from "../lib/load_once.ts";
import { apiIndexRoutes } from "./api_index.ts";
import { bookingRoutes } from "./booking.ts";
import { contactRoutes } from "./contact.ts";
import { healthRoutes } from "./health.ts";

/** The route table and the answer to what none of its routes serves. */
export interface RouteTable {
  /** Every route, in matching order. */
  table: RouteDefinition[];
  /** Answers a path outside `/api/` that no route serves with this method. */
  fallback: FallbackHandler;
}

/**
 * Builds the route table: the API's operations and their aliases, then the site's routes (the
 * booking links, the discovery documents, the MCP endpoint, the agents' documents, the API
 * reference, the forms and the content), whose paths come from the site's index.
 *
 * @param services The resolved services the routes close over; the site's paths come from its
 * `siteIndex`.
 * @returns The table and the fallback.
 */
export function buildRouteTable(services: Services): RouteTable {
  const index = services.siteIndex;
  const table: RouteDefinition[] = [];
  const loadInvites = loadOnce(() => import("../lib/booking/invites.ts"));
  const site = loadOnce(async (): Promise<SiteServices> => ({
    ...services,
    content: await services.loadContent(),
    loadInvites,
  }));
  // Each resource's module is imported, and its handlers made, once, by the first request of any
  // of its routes.
  const bookingActions = loadOnce(async () =>
    (await import("./booking_actions.ts")).createBookingActions(await site())
  );
  const discovery = loadOnce(async () =>
    (await import("./discovery.ts")).createDiscovery(services)
  );
  const mcpModule = loadOnce(() => import("./mcp.ts"));
  const mcp = loadOnce(async () => (await mcpModule()).createMcpEndpoint(await site()));
  // The content's answers are prepared by the build: serving them waits for no corpus.
  const content = loadOnce(async () => (await import("./content.ts")).createContent(services));
  const agents = loadOnce(async () =>
    (await import("./agent_discovery.ts")).createAgentDiscovery(
      await site(),
      async (request, context) => (await content()).fallback(request, context, ""),
    )
  );
  const reference = loadOnce(async () =>
    (await import("./api_reference.ts")).createApiReference(await site())
  );
  const contactForm = loadOnce(async () =>
    (await import("./contact_form.ts")).createContactForm(await site())
  );
  const bookingForm = loadOnce(async () =>
    (await import("./booking_form.ts")).createBookingForm(await site())
  );

  /** A GET route whose handlers come from a resource. */
  const get = (
    path: string,
    load: () => Promise<RouteHandlers>,
    entry: Omit<RouteEntry, "method" | "path"> = {},
  ): RouteDefinition => ({ method: "GET", path, ...entry, load });
  /** A public document: readable from every origin. */
  const document = (path: string, load: () => Promise<RouteHandlers>) =>
    get(path, load, { cors: true });

  table.push(
    ...apiIndexRoutes(services, table),
    ...healthRoutes(services),
    ...contactRoutes(services),
    ...bookingRoutes(services),
  );
  for (const action of BOOKING_ACTIONS) {
    const path = ACTION_PATH_PREFIX + action;
    table.push(
      get(path, async () => (await bookingActions())("GET", action)),
      {
        method: "POST",
        path,
        policies: ["write"],
        load: async () => (await bookingActions())("POST", action),
      },
    );
  }
  table.push(
    document(OPENAPI_PATH, async () => (await discovery()).openApi),
    document(API_CATALOG_PATH, async () => (await discovery()).apiCatalog),
    // Counted once against the read quota; each tool call is counted again by its operation.
    { method: "POST", path: MCP_PATH, policies: ["read"], load: mcp },
    document(MCP_SERVER_CARD_PATH, async () => (await agents()).serverCard),
    ...MCP_WELL_KNOWN_PATHS.map((path) =>
      document(path, async () => (await agents()).wellKnownCard)
    ),
    document(AI_CATALOG_PATH, async () => (await agents()).aiCatalog),
    document(AGENT_SKILLS_INDEX_PATH, async () => (await agents()).skillsIndex),
    document(`${AGENT_SKILLS_PATH}/:name/SKILL.md`, async () => (await agents()).skill),
    document(WELL_KNOWN_LLMS_PATH, async () => (await agents()).llms),
    get(API_REFERENCE_PATHS.en, async () => (await reference()).page("en")),
    get(API_REFERENCE_PATHS.pt, async () => (await reference()).page("pt")),
    get(`${API_REFERENCE_ASSETS_PATH}/standalone.js`, async () => (await reference()).script),
    get(`${API_REFERENCE_ASSETS_PATH}/start.js`, async () => (await reference()).start),
  );
  for (const { path, layout } of index.pages) {
    if (layout === "contact") {
      table.push({
        method: "POST",
        path,
        policies: ["write"],
        load: async () => (await contactForm())(path),
      });
    } else if (layout === "booking") {
      table.push({
        method: "POST",
        path,
        policies: ["write", "booking"],
        load: async () => (await bookingForm())(path),
      });
    }
  }
  table.push(...index.pages.map(({ path }) => get(path, async () => (await content()).page(path))));
  table.push(
    document("/md/*", async () => (await content()).markdown),
    document(LLMS_PATH, async () => (await content()).llms("pt")),
    document(toLlmsPath("en"), async () => (await content()).llms("en")),
    document(LLMS_FULL_PATH, async () => (await content()).llmsFull),
    get("/sitemap.xml", async () => (await content()).sitemap),
    document("/robots.txt", async () => (await content()).robots),
    get("/assets/:name", async () => (await content()).asset),
    // Browsers and chat apps ask for these at the root whatever the page links to.
    ...index.rootAssets.map((name) =>
      get(`/${name}`, async () => (await content()).rootAsset(name))
    ),
  );

  const fallback: FallbackHandler = async (request, context, allow) => {
    if (context.pathname === MCP_PATH) {
      return (await mcpModule()).answerMcpMethodNotAllowed(request, allow);
    }
    return await (await content()).fallback(request, context, allow);
  };
  return { table, fallback };
}
