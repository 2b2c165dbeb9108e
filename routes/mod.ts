/**
 * The route table: every resource's routes, in the order they are tried, assembled from the
 * route factories of this folder. One array drives registration, rate limiting, the API index
 * and `Allow` on 405. The API's routes are built with the handler; the site's (`site.ts`) with
 * the first request that none of them matches, so a cold start that answers the API loads none
 * of the site's modules (issue 15).
 *
 * @module
 */
import type { RequestContext, RouteDefinition } from "../lib/http/route.ts";
import type { Services, SiteServices } from "../lib/services.ts";
import { loadOnce } from "../lib/load_once.ts";
import { apiIndexRoutes } from "./api_index.ts";
import { bookingRoutes } from "./booking.ts";
import { contactRoutes } from "./contact.ts";
import { healthRoutes } from "./health.ts";

/** The site's routes and fallback (`site.ts`), loaded once by the first request that needs them. */
export const loadSiteModule = loadOnce(() => import("./site.ts"));

/**
 * Answers a path outside `/api/` that no route serves with this method: the MCP endpoint's
 * JSON-RPC 405, or the site's 404 or 405 page (see `site.ts`).
 *
 * @param services The resolved services.
 * @param request The request.
 * @param context The request's context.
 * @param allow The methods the path accepts, comma-separated, or empty.
 */
export async function answerFallback(
  services: SiteServices,
  request: Request,
  context: RequestContext,
  allow: string,
): Promise<Response> {
  return await (await loadSiteModule()).answerFallback(services, request, context, allow);
}

/**
 * Builds the API's route table: the index, health, contact and booking operations and their
 * aliases.
 *
 * @param services The resolved services the routes close over.
 * @returns The routes, in matching order.
 */
export function buildRouteTable(services: Services): RouteDefinition[] {
  const table: RouteDefinition[] = [];
  table.push(
    ...apiIndexRoutes(services, table),
    ...healthRoutes(services),
    ...contactRoutes(services),
    ...bookingRoutes(services),
  );
  return table;
}

/**
 * Builds the site's routes, which come after the API's (`site.ts`), loading their modules.
 *
 * @param services The resolved services the routes close over.
 * @returns The routes, in matching order.
 */
export async function buildSiteRouteTable(services: SiteServices): Promise<RouteDefinition[]> {
  return (await loadSiteModule()).buildSiteRoutes(services);
}
