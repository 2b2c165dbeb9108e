/**
 * `GET /api/v1` and its alias `GET /api`: the machine-readable index (spec, ApiIndex), generated
 * from the route table so it cannot drift from what is served.
 *
 * @module
 */
import type { ApiIndex } from "../lib/contract/responses.ts";
import {
  API_BASE_PATH,
  API_REFERENCE_PATHS,
  API_VERSION,
  LLMS_PATH,
  OPENAPI_PATH,
  type Operation,
} from "../lib/contract/contract.ts";
import { buildOperationSummary, MIN_SUNSET_DAYS } from "../lib/contract/contract.ts";
import { buildOperationRoutes, type RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";

export type { ApiIndex } from "../lib/contract/responses.ts";

/**
 * Builds the API index from the routes that are served.
 *
 * @param services The resolved services (base URL, policies, version headers).
 * @param table The complete route table.
 */
export function buildApiIndex(services: Services, table: readonly RouteDefinition[]): ApiIndex {
  const operations = new Map<string, Operation>();
  for (const route of table) {
    if (route.operation) operations.set(route.operation.operationId, route.operation);
  }
  const aliases: Record<string, string> = {};
  for (const operation of operations.values()) {
    for (const alias of operation.aliases) aliases[alias] = operation.path;
  }
  const rateLimit = {} as ApiIndex["rateLimit"];
  for (const policy of Object.values(services.policies)) {
    rateLimit[policy.name] = {
      name: policy.name,
      limit: policy.limit,
      windowSeconds: policy.windowSeconds,
    };
  }
  const deprecation = Object.fromEntries(
    services.versionHeaders.filter(([name]) => name !== "API-Version"),
  );
  return {
    name: "Studio Website Public API",
    version: API_VERSION,
    basePath: API_BASE_PATH,
    openapi: services.baseUrl + OPENAPI_PATH,
    docs: services.baseUrl + API_REFERENCE_PATHS.en,
    llms: services.baseUrl + LLMS_PATH,
    endpoints: [...operations.values()].map((operation) => ({
      operationId: operation.operationId,
      method: operation.method,
      path: operation.path,
      summary: buildOperationSummary(operation, services.schedule.meetingMinutes),
    })),
    versioning: {
      scheme: "path",
      current: API_VERSION,
      header: "API-Version",
      changes: "additive only within a major version; breaking changes get a new path (/api/v2)",
      deprecation:
        `announced with Deprecation (RFC 9745), Sunset (RFC 8594) and Link rel="sunset"; the old major keeps working at least ${MIN_SUNSET_DAYS} days after`,
      deprecated: "Deprecation" in deprecation,
      ...(deprecation.Sunset ? { sunset: deprecation.Sunset } : {}),
      aliases,
    },
    rateLimit,
    authentication: "none",
  };
}

/** The routes of the API index; `table` is the complete route table, read on first use. */
export function apiIndexRoutes(
  services: Services,
  table: readonly RouteDefinition[],
): RouteDefinition[] {
  let body: string | undefined;
  return buildOperationRoutes("getApiIndex", () => {
    body ??= JSON.stringify(buildApiIndex(services, table));
    return { body };
  });
}
