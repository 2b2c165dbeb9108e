/**
 * Discovery documents for agents: the MCP server card (SEP-2127) at `/mcp/server-card` and its
 * well-known copies, the AI catalog, the Agent Skills index and each skill's `SKILL.md`, and the
 * well-known copy of llms.txt. Each is a prepared representation with `ETag` (304 on a match)
 * and `Cache-Control`, readable from any origin.
 *
 * @module
 */
import {
  AGENT_SKILLS_INDEX_PATH,
  AGENT_SKILLS_PATH,
  AI_CATALOG_PATH,
  AI_CATALOG_TYPE,
  MCP_SERVER_CARD_PATH,
  MCP_SERVER_CARD_TYPE,
  MCP_WELL_KNOWN_PATHS,
  WELL_KNOWN_LLMS_PATH,
} from "../lib/contract/contract.ts";
import { JSON_TYPE } from "../lib/http/json_response.ts";
import {
  DISCOVERY_CACHE,
  type HeaderPair,
  type Representation,
  respond,
  toRepresentation,
} from "../lib/http/representation.ts";
import type { RouteDefinition } from "../lib/http/route.ts";
import {
  buildAiCatalog,
  buildServerCard,
  buildWellKnownCard,
} from "../lib/mcp/build_server_card.ts";
import { buildSkillsIndex, toSkillText } from "../lib/site/build_skills_index.ts";
import { MARKDOWN_TYPE } from "../lib/site/site.ts";
import type { SiteServices } from "../lib/services.ts";
import { once } from "../lib/load_once.ts";
import { answerSiteFallback } from "./content.ts";

/** An hour: the documents change only with a deployment. */

/** The fields of every discovery document besides its type. */
const SHARED: readonly HeaderPair[] = [["Cache-Control", DISCOVERY_CACHE]];

function toDocument(value: unknown, type: string): Representation {
  return toRepresentation(JSON.stringify(value, null, 2) + "\n", [
    ["Content-Type", type],
    ...SHARED,
  ]);
}

/** The routes of the agents' discovery documents. */
export function agentDiscoveryRoutes(services: SiteServices): RouteDefinition[] {
  const { baseUrl } = services;
  const skills = services.content.skills ?? [];
  // Each document is prepared by the first request for it, not at start-up, which stays short.
  const card = once(() => buildServerCard(baseUrl, services.content.name));
  const cardDocument = once(() => toDocument(card(), MCP_SERVER_CARD_TYPE));
  const wellKnownCard = once(() => toDocument(buildWellKnownCard(card()), JSON_TYPE));
  const catalog = once(() => toDocument(buildAiCatalog(baseUrl), AI_CATALOG_TYPE));
  const skillFiles = once(() =>
    new Map(skills.map((skill) => [
      skill.name,
      toRepresentation(toSkillText(skill, baseUrl), [["Content-Type", MARKDOWN_TYPE], ...SHARED]),
    ]))
  );
  // Web Crypto digests are asynchronous: the index is built on its first request and kept.
  let index: Promise<Representation> | undefined;
  const serve = (path: string, representation: () => Representation): RouteDefinition => ({
    method: "GET",
    path,
    cors: true,
    handle: (request) => respond(request, representation()),
  });
  return [
    serve(MCP_SERVER_CARD_PATH, cardDocument),
    ...MCP_WELL_KNOWN_PATHS.map((path) => serve(path, wellKnownCard)),
    serve(AI_CATALOG_PATH, catalog),
    {
      method: "GET",
      path: AGENT_SKILLS_INDEX_PATH,
      cors: true,
      async handle(request) {
        index ??= buildSkillsIndex(skills, baseUrl).then((value) => toDocument(value, JSON_TYPE));
        return respond(request, await index);
      },
    },
    {
      method: "GET",
      path: `${AGENT_SKILLS_PATH}/:name/SKILL.md`,
      cors: true,
      handle(request, context) {
        const name = context.pathname.slice(AGENT_SKILLS_PATH.length + 1, -"/SKILL.md".length);
        const file = skillFiles().get(name);
        if (!file) return answerSiteFallback(services, request, context, "");
        return respond(request, file);
      },
    },
    {
      method: "GET",
      path: WELL_KNOWN_LLMS_PATH,
      cors: true,
      handle: async (request) => respond(request, (await services.site()).llms.pt),
    },
  ];
}
