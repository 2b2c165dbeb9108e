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
import { bookingRoutes } from "./booking.ts";
import { bookingActionRoutes } from "./booking_actions.ts";
import { contactRoutes } from "./contact.ts";
import { contactFormRoutes } from "./contact_form.ts";
import { answerSiteFallback, contentRoutes } from "./content.ts";
import { discoveryRoutes } from "./discovery.ts";
import { healthRoutes } from "./health.ts";

export { answerSiteFallback };

/**
 * Builds the complete route table of a handler.
 *
 * @param services The resolved services the routes close over.
 * @returns The routes: the API's operations and their aliases, the booking action pages, the
 * discovery documents, the contact form and the site's content, in matching order.
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
    ...contactFormRoutes(services),
    ...contentRoutes(services),
  );
  return table;
}
