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
  // The body changes once a millisecond, so the requests of one millisecond share its JSON text:
  // formatting the time alone (`toISOString`) costs about a microsecond on Node 20.
  let writtenAt = NaN;
  let text = "";
  return buildOperationRoutes("getHealth", () => {
    const now = services.nowMilliseconds();
    if (now !== writtenAt) {
      const body: HealthResponse = {
        status: "ok",
        service: SERVICE_NAME,
        version: API_VERSION,
        time: new Date(now).toISOString(),
      };
      writtenAt = now;
      text = JSON.stringify(body);
    }
    return { body: text, headers: NO_STORE };
  });
}
