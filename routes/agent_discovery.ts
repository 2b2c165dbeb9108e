/**
 * Discovery documents for agents: the MCP server card (SEP-2127) at `/mcp/server-card` and its
 * well-known copies, the AI catalog, the Agent Skills index and each skill's `SKILL.md`, and the
 * well-known copy of llms.txt. Each is a prepared representation with `ETag` (304 on a match)
 * and `Cache-Control`, readable from any origin.
 *
 * @module
 */
import {
  AGENT_SKILLS_PATH,
  AI_CATALOG_TYPE,
  MCP_SERVER_CARD_TYPE,
} from "../lib/contract/contract.ts";
import { JSON_TYPE } from "../lib/http/json_response.ts";
import {
  DISCOVERY_CACHE,
  type HeaderPair,
  type Representation,
  respond,
  toRepresentation,
} from "../lib/http/representation.ts";
import type { RouteHandler, RouteHandlers } from "../lib/http/route.ts";
import {
  buildAiCatalog,
  buildServerCard,
  buildWellKnownCard,
} from "../lib/mcp/build_server_card.ts";
import { buildSkillsIndex, toSkillText } from "../lib/site/build_skills_index.ts";
import { MARKDOWN_TYPE } from "../lib/site/site.ts";
import type { SiteServices } from "../lib/services.ts";
import { loadOnce, once } from "../lib/load_once.ts";

/** An hour: the documents change only with a deployment. */

/** The fields of every discovery document besides its type. */
const SHARED: readonly HeaderPair[] = [["Cache-Control", DISCOVERY_CACHE]];

function toDocument(value: unknown, type: string): Representation {
  return toRepresentation(JSON.stringify(value, null, 2) + "\n", [
    ["Content-Type", type],
    ...SHARED,
  ]);
}

/** The handlers of the agents' discovery documents, by document. */
export interface AgentDiscovery {
  /** The MCP server card (`/mcp/server-card`). */
  serverCard: RouteHandlers;
  /** The card's well-known copies (`/.well-known/mcp/server-card.json`, `/.well-known/mcp.json`). */
  wellKnownCard: RouteHandlers;
  /** The AI catalog (`/.well-known/ai-catalog.json`). */
  aiCatalog: RouteHandlers;
  /** The Agent Skills index (`/.well-known/agent-skills/index.json`). */
  skillsIndex: RouteHandlers;
  /** A skill's `SKILL.md`. */
  skill: RouteHandlers;
  /** `/.well-known/llms.txt`: the Portuguese llms.txt. */
  llms: RouteHandlers;
}

/**
 * The handlers of the agents' discovery documents (their routes are entries of `routes/mod.ts`,
 * readable from every origin). Each document is prepared by the first request for it.
 *
 * @param services The site's services.
 * @param answerNotFound Answers a skill that does not exist (the site's 404).
 * @returns The handlers, by document.
 */
export function createAgentDiscovery(
  services: SiteServices,
  answerNotFound: RouteHandler,
): AgentDiscovery {
  const { baseUrl } = services;
  const skills = services.content.skills ?? [];
  const card = once(() => buildServerCard(baseUrl, services.content.name));
  const cardDocument = once(() => toDocument(card(), MCP_SERVER_CARD_TYPE));
  const wellKnownCard = once(() => toDocument(buildWellKnownCard(card()), JSON_TYPE));
  const catalog = once(() =>
    toDocument(
      buildAiCatalog(baseUrl, services.content.name, services.schedule.meetingMinutes),
      AI_CATALOG_TYPE,
    )
  );
  const skillFiles = once(() =>
    new Map(skills.map((skill) => [
      skill.name,
      toRepresentation(toSkillText(skill, baseUrl), [["Content-Type", MARKDOWN_TYPE], ...SHARED]),
    ]))
  );
  // Web Crypto digests are asynchronous: the index is built on its first request and kept.
  const index = loadOnce(async () =>
    toDocument(await buildSkillsIndex(skills, baseUrl), JSON_TYPE)
  );
  const serve = (representation: () => Representation): RouteHandlers => ({
    handle: (request) => respond(request, representation()),
  });
  return {
    serverCard: serve(cardDocument),
    wellKnownCard: serve(wellKnownCard),
    aiCatalog: serve(catalog),
    skillsIndex: { handle: async (request) => respond(request, await index()) },
    skill: {
      handle(request, context) {
        const name = context.pathname.slice(AGENT_SKILLS_PATH.length + 1, -"/SKILL.md".length);
        const file = skillFiles().get(name);
        if (!file) return answerNotFound(request, context);
        return respond(request, file);
      },
    },
    llms: { handle: async (request) => respond(request, (await services.site()).llms.pt) },
  };
}
