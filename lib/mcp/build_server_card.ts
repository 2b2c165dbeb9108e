/**
 * The discovery documents of the MCP server: its server card (SEP-2127, schema v1), served at
 * `/mcp/server-card`; the well-known copies that scanners read, which add the keys of earlier
 * drafts (`serverInfo`, `transport`, `capabilities`); and the AI catalog that points to the card.
 *
 * @module
 */
import {
  API_DOCS_PATH,
  MCP_PATH,
  MCP_SERVER_CARD_PATH,
  MCP_SERVER_CARD_SCHEMA,
  MCP_SERVER_CARD_TYPE,
  MCP_SERVER_VERSION,
} from "../contract/contract.ts";

/**
 * The MCP protocol revisions negotiated with `initialize` (the 2025 era and before), newest
 * first: `initialize` answers a revision it is not given with the first.
 */
export const MCP_HANDSHAKE_PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
] as const;

/** The MCP protocol revision without a handshake (`server/discover` and each request's `_meta`). */
export const MCP_MODERN_PROTOCOL_VERSION = "2026-07-28";

/**
 * Every MCP protocol revision the endpoint accepts, newest first: the 2026-07-28 revision, then
 * those of `initialize`. The server is configured with this list, and the server card lists it;
 * a test sends each.
 */
export const MCP_PROTOCOL_VERSIONS = [
  MCP_MODERN_PROTOCOL_VERSION,
  ...MCP_HANDSHAKE_PROTOCOL_VERSIONS,
] as const;

/** The server's description: at most 100 characters (SEP-2127). */
export const MCP_SERVER_DESCRIPTION =
  "Book a conversation with a design studio, read its free times, or send it an inquiry";

/**
 * The capabilities the server declares (`initialize`, `server/discover`) and its cards list:
 * tools, resources and prompts, whose lists never change while a client is connected (the server
 * is stateless and keeps no stream to announce a change on).
 */
export const MCP_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
} as const;

/** An MCP server card (SEP-2127, `#/$defs/ServerCard` of the v1 schema). */
export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  description: string;
  title: string;
  websiteUrl: string;
  remotes: Array<{ type: "streamable-http"; url: string; supportedProtocolVersions: string[] }>;
}

/**
 * The server's reverse-DNS name (SEP-2127: one slash between namespace and name): the public
 * host's labels reversed, then `/studio`, e.g. `example.studio/studio` for `studio.example`.
 *
 * @param baseUrl The public origin.
 */
export function toServerName(baseUrl: string): string {
  const labels = new URL(baseUrl).hostname.replace(/[^a-zA-Z0-9.-]/g, "-").split(".");
  return `${labels.reverse().join(".")}/studio`;
}

/**
 * Builds the server card.
 *
 * @param baseUrl The public origin.
 * @param studioName The studio's name, for the card's title.
 * @returns The card, valid against the SEP-2127 v1 schema.
 */
export function buildServerCard(baseUrl: string, studioName: string): ServerCard {
  return {
    $schema: MCP_SERVER_CARD_SCHEMA,
    name: toServerName(baseUrl),
    version: MCP_SERVER_VERSION,
    description: MCP_SERVER_DESCRIPTION,
    title: `${studioName}: bookings and inquiries`,
    websiteUrl: baseUrl + API_DOCS_PATH,
    remotes: [{
      type: "streamable-http",
      url: baseUrl + MCP_PATH,
      supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
    }],
  };
}

/**
 * The well-known copy of the card (`/.well-known/mcp/server-card.json`, `/.well-known/mcp.json`):
 * the card plus the keys that scanners of earlier drafts read — `serverInfo`, the transport's
 * endpoint and the capabilities.
 *
 * @param card The server card.
 * @returns A superset of the card (so not valid against its schema, which allows no other key).
 */
export function buildWellKnownCard(card: ServerCard): Record<string, unknown> {
  const [remote] = card.remotes;
  return {
    ...card,
    serverInfo: { name: card.name, title: card.title, version: card.version },
    transport: { type: "streamable-http", endpoint: remote.url },
    // Read by scanners of earlier drafts, which send `initialize`.
    protocolVersion: MCP_HANDSHAKE_PROTOCOL_VERSIONS[0],
    capabilities: MCP_CAPABILITIES,
  };
}

/**
 * What people ask for that the MCP server answers: the catalog entry's `representativeQueries`,
 * which registries embed to find it (the ARD specification recommends two to five).
 *
 * @param studioName The studio's name, e.g. `Traço`.
 * @param meetingMinutes The length of a conversation, minutes (the schedule's `meetingMinutes`).
 */
function buildRepresentativeQueries(studioName: string, meetingMinutes: number): string[] {
  return [
    `Book a free ${meetingMinutes}-minute conversation with the design studio ${studioName}`,
    "Which times are free for a conversation with the studio next month?",
    "Send a design studio an inquiry about a new website or brand identity",
  ];
}

/**
 * The AI catalog (`/.well-known/ai-catalog.json`): one entry, the server card by URL, with the
 * name a person or an agent's interface shows for it (`displayName`, which the catalog's schema
 * requires of every entry) and the queries it answers (`representativeQueries`).
 *
 * @param baseUrl The public origin.
 * @param studioName The studio's name, e.g. `Traço`.
 * @param meetingMinutes The length of a conversation, minutes (the schedule's `meetingMinutes`).
 * @returns The catalog document.
 */
export function buildAiCatalog(
  baseUrl: string,
  studioName: string,
  meetingMinutes: number,
): Record<string, unknown> {
  const host = new URL(baseUrl).hostname;
  return {
    specVersion: "1.0",
    entries: [{
      identifier: `urn:air:${host}:mcp:studio`,
      displayName: `${studioName}: bookings and inquiries (MCP)`,
      type: MCP_SERVER_CARD_TYPE,
      url: baseUrl + MCP_SERVER_CARD_PATH,
      representativeQueries: buildRepresentativeQueries(studioName, meetingMinutes),
    }],
  };
}
