/**
 * The route table: every resource's routes, in the order they are tried, assembled from the
 * route factories of this folder. One array drives registration, rate limiting, the API index
 * and `Allow` on 405.
 *
 * @module
 */
import type { RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import { apiIndexRoutes } from "./api_index.ts";
import { apiReferenceRoutes } from "./api_reference.ts";
import { bookingRoutes } from "./booking.ts";
import { bookingActionRoutes } from "./booking_actions.ts";
import { contactRoutes } from "./contact.ts";
import { contactFormRoutes } from "./contact_form.ts";
import { bookingFormRoutes } from "./booking_form.ts";
import { answerSiteFallback, contentRoutes } from "./content.ts";
import { discoveryRoutes } from "./discovery.ts";
import { agentDiscoveryRoutes } from "./agent_discovery.ts";
import { healthRoutes } from "./health.ts";
import { answerMcpMethodNotAllowed, mcpRoutes } from "./mcp.ts";
import type { RequestContext } from "../lib/http/route.ts";
import { MCP_PATH } from "../lib/contract/contract.ts";

/**
 * Answers a path outside `/api/` that no route serves with this method: the MCP endpoint's
 * JSON-RPC 405, or the site's 404 or 405 page.
 *
 * @param services The resolved services.
 * @param request The request.
 * @param context The request's context.
 * @param allow The methods the path accepts, comma-separated, or empty.
 */
export function answerFallback(
  services: Services,
  request: Request,
  context: RequestContext,
  allow: string,
): Response | Promise<Response> {
  if (context.pathname === MCP_PATH) return answerMcpMethodNotAllowed(request, allow);
  return answerSiteFallback(services, request, context, allow);
}

/**
 * Builds the complete route table of a handler.
 *
 * @param services The resolved services the routes close over.
 * @returns The routes: the API's operations and their aliases, the booking action pages, the
 * discovery documents, the MCP endpoint and the agents' discovery documents, the contact form and the site's content, in matching order.
 */
export function buildRouteTable(services: Services): RouteDefinition[] {
  const table: RouteDefinition[] = [];
  table.push(
    ...apiIndexRoutes(services, table),
    ...healthRoutes(services),
    ...contactRoutes(services),
    ...bookingRoutes(services),
    ...bookingActionRoutes(services),
    ...discoveryRoutes(services),
    ...mcpRoutes(services),
    ...agentDiscoveryRoutes(services),
    ...apiReferenceRoutes(services),
    ...contactFormRoutes(services),
    ...bookingFormRoutes(services),
    ...contentRoutes(services),
  );
  return table;
}
