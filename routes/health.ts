/**
 * `GET /api/v1/health` and its alias `GET /api/health` (spec, Endpoints).
 *
 * @module
 */
import { API_VERSION, SERVICE_NAME } from "../lib/contract/contract.ts";
import { buildOperationRoutes, type RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import type { HealthResponse } from "../lib/contract/responses.ts";

export type { HealthResponse } from "../lib/contract/responses.ts";

const NO_STORE = { "Cache-Control": "no-store" };

/** The routes of the liveness probe. */
export function healthRoutes(services: Services): RouteDefinition[] {
  return buildOperationRoutes("getHealth", () => {
    const body: HealthResponse = {
      status: "ok",
      service: SERVICE_NAME,
      version: API_VERSION,
      time: new Date(services.nowMilliseconds()).toISOString(),
    };
    return { body, headers: NO_STORE };
  });
}
