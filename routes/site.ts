/**
 * The site's routes: the pages, their Markdown twins and the documents for software, the forms
 * and the booking links, the discovery documents, the API reference and the MCP endpoint. The
 * handler loads this module with the first request that no API route matches, so a cold start
 * that answers the API (a health check) does not load the site's modules (issue 15).
 *
 * @module
 */
import type { RequestContext, RouteDefinition } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import { apiReferenceRoutes } from "./api_reference.ts";
import { bookingActionRoutes } from "./booking_actions.ts";
import { contactFormRoutes } from "./contact_form.ts";
import { bookingFormRoutes } from "./booking_form.ts";
import { answerSiteFallback, contentRoutes } from "./content.ts";
import { discoveryRoutes } from "./discovery.ts";
import { agentDiscoveryRoutes } from "./agent_discovery.ts";
import { answerMcpMethodNotAllowed, mcpRoutes } from "./mcp.ts";
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
  services: SiteServices,
  request: Request,
  context: RequestContext,
  allow: string,
): Response | Promise<Response> {
  if (context.pathname === MCP_PATH) return answerMcpMethodNotAllowed(request, allow);
  return answerSiteFallback(services, request, context, allow);
}

/**
 * Builds the site's routes, in matching order (they come after the API's, whose paths they
 * never share).
 *
 * @param services The resolved services the routes close over.
 * @returns The booking action pages, the discovery documents, the MCP endpoint, the agents'
 * discovery documents, the API reference, the forms and the site's content.
 */
export function buildSiteRoutes(services: SiteServices): RouteDefinition[] {
  return [
    ...bookingActionRoutes(services),
    ...discoveryRoutes(services),
    ...mcpRoutes(services),
    ...agentDiscoveryRoutes(services),
    ...apiReferenceRoutes(services),
    ...contactFormRoutes(services),
    ...bookingFormRoutes(services),
    ...contentRoutes(services),
  ];
}
