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
import {
  ACTION_PATH_PREFIX,
  BOOKING_ACTIONS,
  isBookingTransition,
  RESCHEDULE_PATH,
} from "../lib/booking/signed_links.ts";
import { CALENDAR_FEED_PATH } from "../lib/team/calendar_feed_path.ts";
import type { FallbackHandler } from "../lib/http/create_pipeline.ts";
import type { RouteDefinition, RouteEntry, RouteHandlers } from "../lib/http/route.ts";
import type { Services, SiteServices } from "../lib/services.ts";
import type { SiteIndex } from "../lib/site/site_index.ts";
import { loadOnce } from "../lib/load_once.ts";
import { TEAM_PATHS, type TeamRoute } from "../lib/team/team.ts";
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

/** Loads a route's handlers with its first request. */
type LoadHandlers = () => Promise<RouteHandlers>;

/**
 * The loaders of the site's resources: each resource's module is imported, and its handlers made,
 * once, by the first request of any of its routes; those of the site get the services with the
 * content, loaded once for all.
 */
function createResources(services: Services) {
  const site = loadOnce(async (): Promise<SiteServices> => ({
    ...services,
    content: await services.loadContent(),
  }));
  const mcpModule = loadOnce(() => import("./mcp.ts"));
  // The content's answers are prepared by the build: serving them waits for no corpus.
  const content = loadOnce(async () => (await import("./content.ts")).createContent(services));
  return {
    content,
    mcpModule,
    mcp: loadOnce(async () => (await mcpModule()).createMcpEndpoint(await site())),
    bookingActions: loadOnce(async () =>
      (await import("./booking_actions.ts")).createBookingActions(await site())
    ),
    reschedule: loadOnce(async () =>
      (await import("./reschedule.ts")).createReschedule(await site())
    ),
    discovery: loadOnce(async () => (await import("./discovery.ts")).createDiscovery(services)),
    agents: loadOnce(async () =>
      (await import("./agent_discovery.ts")).createAgentDiscovery(
        await site(),
        async (request, context) => (await content()).fallback(request, context, ""),
      )
    ),
    reference: loadOnce(async () =>
      (await import("./api_reference.ts")).createApiReference(await site())
    ),
    contactForm: loadOnce(async () =>
      (await import("./contact_form.ts")).createContactForm(await site())
    ),
    bookingForm: loadOnce(async () =>
      (await import("./booking_form.ts")).createBookingForm(await site())
    ),
    team: loadOnce(async () => {
      const [{ createTeamDesk }, { loadTeamDeskActions }, siteServices] = await Promise.all([
        import("./team.ts"),
        import("./team_desk_actions.ts"),
        site(),
      ]);
      return createTeamDesk(siteServices, loadOnce(() => loadTeamDeskActions(siteServices)));
    }),
    calendarFeed: loadOnce(async () =>
      (await import("./team_calendar_feed.ts")).createTeamCalendarFeed(
        services,
        async (request, context) => (await content()).fallback(request, context, ""),
      )
    ),
  };
}

/** The resources' loaders (see {@linkcode createResources}). */
type Resources = ReturnType<typeof createResources>;

/** A GET route whose handlers come from a resource. */
function get(
  path: string,
  load: LoadHandlers,
  entry: Omit<RouteEntry, "method" | "path"> = {},
): RouteDefinition {
  return { method: "GET", path, ...entry, load };
}

/** A public document: readable from every origin. */
function publicDocument(path: string, load: LoadHandlers): RouteDefinition {
  return get(path, load, { cors: true });
}

/** The pages of the booking e-mails' signed links: a GET per action, and a POST per transition. */
function actionRoutes({ bookingActions }: Resources): RouteDefinition[] {
  return BOOKING_ACTIONS.flatMap((action): RouteDefinition[] => {
    const path = ACTION_PATH_PREFIX + action;
    const page = get(path, async () => (await bookingActions())("GET", action));
    // A view (the booking's page, its invite) is only read: a POST there is a 405.
    if (!isBookingTransition(action)) return [page];
    return [page, {
      method: "POST",
      path,
      policies: ["write"],
      load: async () => (await bookingActions())("POST", action),
    }];
  });
}

/** The attendee's reschedule page: the GET shows the free times, the POST moves the booking. */
function rescheduleRoutes({ reschedule }: Resources): RouteDefinition[] {
  return [
    get(RESCHEDULE_PATH, async () => (await reschedule())("GET")),
    {
      method: "POST",
      path: RESCHEDULE_PATH,
      policies: ["write"],
      load: async () => (await reschedule())("POST"),
    },
  ];
}

/** The documents for software: OpenAPI, the catalogs, MCP and its cards, the API reference. */
function documentRoutes({ discovery, mcp, agents, reference }: Resources): RouteDefinition[] {
  return [
    publicDocument(OPENAPI_PATH, async () => (await discovery()).openApi),
    publicDocument(API_CATALOG_PATH, async () => (await discovery()).apiCatalog),
    // Counted once against the read quota; each tool call is counted again by its operation.
    { method: "POST", path: MCP_PATH, policies: ["read"], load: mcp },
    publicDocument(MCP_SERVER_CARD_PATH, async () => (await agents()).serverCard),
    ...MCP_WELL_KNOWN_PATHS.map((path) =>
      publicDocument(path, async () => (await agents()).wellKnownCard)
    ),
    publicDocument(AI_CATALOG_PATH, async () => (await agents()).aiCatalog),
    publicDocument(AGENT_SKILLS_INDEX_PATH, async () => (await agents()).skillsIndex),
    publicDocument(`${AGENT_SKILLS_PATH}/:name/SKILL.md`, async () => (await agents()).skill),
    publicDocument(WELL_KNOWN_LLMS_PATH, async () => (await agents()).llms),
    get(API_REFERENCE_PATHS.en, async () => (await reference()).page("en")),
    get(API_REFERENCE_PATHS.pt, async () => (await reference()).page("pt")),
    get(`${API_REFERENCE_ASSETS_PATH}/standalone.js`, async () => (await reference()).script),
    get(`${API_REFERENCE_ASSETS_PATH}/start.js`, async () => (await reference()).start),
  ];
}

/** The team's calendar subscription: its secret travels in the query, which is never logged. */
function calendarFeedRoutes({ calendarFeed }: Resources): RouteDefinition[] {
  return [get(CALENDAR_FEED_PATH, calendarFeed)];
}

/** The `POST` of the forms, on the pages whose layout is `contact` or `booking`. */
function formRoutes(
  { contactForm, bookingForm }: Resources,
  index: SiteIndex,
): RouteDefinition[] {
  return index.pages.flatMap(({ path, layout }): RouteDefinition[] => {
    if (layout === "contact") {
      return [{
        method: "POST",
        path,
        policies: ["write"],
        load: async () => (await contactForm())(path),
      }];
    }
    if (layout === "booking") {
      return [{
        method: "POST",
        path,
        policies: ["write", "booking"],
        load: async () => (await bookingForm())(path),
      }];
    }
    return [];
  });
}

/**
 * The team's desk in both languages: its pages (the overview, a page per section, a page per
 * record and the steps of a booking's decline and cancel), the sign-in routes (each POST counted
 * against the write quota per client; the address's own quota is the sign-in's), and the desk's
 * actions; a session guards the pages and the actions.
 */
function teamRoutes({ team }: Resources): RouteDefinition[] {
  const pages: TeamRoute[] = [
    "desk",
    "inquiries",
    "inquiryRecord",
    "bookings",
    "bookingRecord",
    "bookingDecline",
    "bookingCancel",
    "personalData",
    "calendarFeed",
    "passkeys",
    "audit",
    "webhooks",
  ];
  const posts: TeamRoute[] = [
    "signOut",
    "booking",
    "inquiry",
    "personalData",
    "calendarFeed",
    "passkey",
    "passkeyOptions",
    "webhooksTest",
    "webhooksEnable",
  ];
  return (["pt", "en"] as const).flatMap((locale): RouteDefinition[] => {
    const paths = TEAM_PATHS[locale];
    const load = (route: TeamRoute, method: "GET" | "POST") => async () =>
      (await team())(route, method, locale);
    return [
      ...pages.map((route) => get(paths[route], load(route, "GET"))),
      {
        method: "POST",
        path: paths.requestLink,
        policies: ["write"],
        load: load("requestLink", "POST"),
      },
      get(paths.signIn, load("signIn", "GET")),
      { method: "POST", path: paths.signIn, policies: ["write"], load: load("signIn", "POST") },
      ...(["passkeySignIn", "passkeySignInOptions"] as const).map((route): RouteDefinition => ({
        method: "POST",
        path: paths[route],
        policies: ["write"],
        load: load(route, "POST"),
      })),
      ...posts.map((route): RouteDefinition => ({
        method: "POST",
        path: paths[route],
        load: load(route, "POST"),
      })),
    ];
  });
}

/** The site's content: its pages, their Markdown twins, the documents and the assets. */
function contentRoutes({ content }: Resources, index: SiteIndex): RouteDefinition[] {
  return [
    ...index.pages.map(({ path }) => get(path, async () => (await content()).page(path))),
    publicDocument("/md/*", async () => (await content()).markdown),
    publicDocument(LLMS_PATH, async () => (await content()).llms("pt")),
    publicDocument(toLlmsPath("en"), async () => (await content()).llms("en")),
    publicDocument(LLMS_FULL_PATH, async () => (await content()).llmsFull),
    get("/sitemap.xml", async () => (await content()).sitemap),
    publicDocument("/robots.txt", async () => (await content()).robots),
    get("/assets/:name", async () => (await content()).asset),
    // Browsers and chat apps ask for these at the root whatever the page links to.
    ...index.rootAssets.map((name) =>
      get(`/${name}`, async () => (await content()).rootAsset(name))
    ),
  ];
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
  const resources = createResources(services);
  const table: RouteDefinition[] = [];
  table.push(
    ...apiIndexRoutes(services, table),
    ...healthRoutes(services),
    ...contactRoutes(services),
    ...bookingRoutes(services),
    ...actionRoutes(resources),
    ...rescheduleRoutes(resources),
    ...documentRoutes(resources),
    ...calendarFeedRoutes(resources),
    ...formRoutes(resources, services.siteIndex),
    ...teamRoutes(resources),
    ...contentRoutes(resources, services.siteIndex),
  );
  const { mcpModule, content } = resources;
  const fallback: FallbackHandler = async (request, context, allow) => {
    if (context.pathname === MCP_PATH) {
      return (await mcpModule()).answerMcpMethodNotAllowed(request, allow);
    }
    return await (await content()).fallback(request, context, allow);
  };
  return { table, fallback };
}
