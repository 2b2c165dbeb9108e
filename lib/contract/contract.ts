/**
 * The facts of the Studio Website Public API v1 (`docs/api-v1.md`), each stated
 * once: error codes and their statuses, rate-limit policies, request fields and their bounds, and
 * the operations. The validators, the OpenAPI document, the API index and the README's tables are
 * derived from here.
 *
 * @module
 */
import type { FieldSet, FieldValues, JsonSchema } from "./fields.ts";

/** The API's major version, as sent in `API-Version` and used in `/api/v1` (spec, Versioning 1). */
export const API_VERSION = "1";

/** The versioned base path (spec, Versioning 1). */
export const API_BASE_PATH = `/api/v${API_VERSION}` as const;

/** The service's name, as HealthResponse `service` states it and the command line is called. */
export const SERVICE_NAME = "studio-website";

/** The least time between `Deprecation` and `Sunset` the spec promises (Versioning 4), in days. */
export const MIN_SUNSET_DAYS = 180;

/** The path of the API and its unversioned aliases: every answer under it is JSON. */
export const API_PREFIX = "/api";

/** The version of the OpenAPI description document (spec, Versioning 7). */
export const OPENAPI_DOCUMENT_VERSION = "1.2.0";

/** Where the OpenAPI 3.1 description is served (spec, Rules of use). */
export const OPENAPI_PATH = "/openapi.json";

/** The media type of the OpenAPI document (registered by the OpenAPI Initiative). */
export const OPENAPI_TYPE = "application/vnd.oai.openapi+json;version=3.1";

/** The media type of the API catalog (RFC 9727, section 4.2). */
export const API_CATALOG_TYPE =
  'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** Where the RFC 9727 API catalog is served. */
export const API_CATALOG_PATH = "/.well-known/api-catalog";

/** Where the curated site index for software is served (spec, Rules of use). */
export const LLMS_PATH = "/llms.txt";

/** Where the whole corpus is served as one Markdown document. */
export const LLMS_FULL_PATH = "/llms-full.txt";

/**
 * The path of a language's llms.txt: `/llms.txt` (Portuguese) or `/en/llms.txt`.
 *
 * @param language `pt` or `en`.
 */
export function toLlmsPath(language: "pt" | "en"): string {
  return language === "pt" ? LLMS_PATH : "/en" + LLMS_PATH;
}

/** The page for software and agents that documents the API for people. */
export const API_DOCS_PATH = "/en/agents";

/**
 * The API reference pages, rendered from the OpenAPI document in the browser, by
 * language: the operations, schemas and examples, and a "try it" against the same origin.
 */
export const API_REFERENCE_PATHS = { en: "/en/api-reference", pt: "/referencia-api" } as const;

/** Where the API reference's renderer and its start script are served. */
export const API_REFERENCE_ASSETS_PATH = "/assets/api-reference";

/** The largest accepted contact body, in bytes. */
const CONTACT_MAX_BODY_BYTES = 64 * 1024;

/**
 * The largest accepted booking body, in bytes: the largest valid BookingRequest, every character
 * outside the BMP and written as JSON escapes (\uXXXX\uXXXX, 12 bytes each), is about 28 KiB.
 */
const BOOKING_MAX_BODY_BYTES = 32 * 1024;

/**
 * The hint of a booking's 503 `no-backend` when the service knows nothing was booked (a calendar
 * or the store could not be read before any commit): the one 503 a client may retry without
 * checking the attendee's mailbox first. Every other 503 of the booking operation may hide a
 * booking (spec, Errors: "the client must not retry without checking the attendee's mailbox").
 */
export const BOOKING_NOTHING_BOOKED_HINT = "Retry in a minute; nothing was booked";

/**
 * The MCP endpoint (Model Context Protocol, Streamable HTTP transport, stateless): the same
 * operations as the API, as tools. Described by the API catalog and the agents page; the OpenAPI
 * document stays the REST contract.
 */
export const MCP_PATH = "/mcp";

/** The MCP server's version, in its `serverInfo` and its server card (SEP-2127). */
export const MCP_SERVER_VERSION = "1.0.0";

/** Where the MCP server card is served: SEP-2127's reserved `<streamable-http-url>/server-card`. */
export const MCP_SERVER_CARD_PATH = MCP_PATH + "/server-card";

/** The media type of an MCP server card (SEP-2127). */
export const MCP_SERVER_CARD_TYPE = "application/mcp-server-card+json";

/** The server card's JSON Schema (SEP-2127, v1). */
export const MCP_SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/**
 * The well-known copies of the server card, for scanners that look there rather than follow the
 * AI catalog: the card plus the keys they read (`serverInfo`, `transport`, `capabilities`).
 */
export const MCP_WELL_KNOWN_PATHS = ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json"];

/** Where the AI catalog is served (Agent-Card/ai-catalog), pointing to the server card. */
export const AI_CATALOG_PATH = "/.well-known/ai-catalog.json";

/** The media type of the AI catalog. */
export const AI_CATALOG_TYPE = "application/ai-catalog+json";

/** The folder of the Agent Skills: `index.json` and one `<name>/SKILL.md` per skill. */
export const AGENT_SKILLS_PATH = "/.well-known/agent-skills";

/** The Agent Skills discovery index (v0.2.0). */
export const AGENT_SKILLS_INDEX_PATH = AGENT_SKILLS_PATH + "/index.json";

/** The well-known copy of llms.txt. */
export const WELL_KNOWN_LLMS_PATH = "/.well-known/llms.txt";

/** The six machine-readable error codes of ErrorResponse (spec, Errors). */
export const ERROR_CODES = [
  "bad-form",
  "validation-failed",
  "no-backend",
  "not-found",
  "rate-limited",
  "internal-error",
] as const;

/** One of the six error codes. */
export type ErrorCode = typeof ERROR_CODES[number];

/**
 * The pairing of HTTP statuses and error codes this service uses (the spec leaves it open; this
 * table is published in the OpenAPI document and the README).
 */
export const ERROR_STATUS_CODES = [
  {
    status: 400,
    code: "bad-form",
    condition: "The body is not one of the accepted content types or does not parse",
  },
  {
    status: 400,
    code: "validation-failed",
    condition: "A field or query parameter is missing or out of bounds",
  },
  { status: 403, code: "validation-failed", condition: "The request's Origin is not allowed" },
  { status: 404, code: "not-found", condition: "No operation exists at this path" },
  {
    status: 405,
    code: "not-found",
    condition: "The path exists but not with this method (see Allow)",
  },
  {
    status: 409,
    code: "validation-failed",
    condition: "The slot is no longer available: refresh the availability listing",
  },
  {
    status: 413,
    code: "bad-form",
    condition: `A booking body is larger than ${
      BOOKING_MAX_BODY_BYTES / 1024
    } KiB (a larger contact body is a 400 bad-form)`,
  },
  { status: 429, code: "rate-limited", condition: "A rate-limit quota is exhausted" },
  { status: 500, code: "no-backend", condition: "The store could not keep the request" },
  { status: 500, code: "internal-error", condition: "An unexpected failure of the service" },
  {
    status: 503,
    code: "no-backend",
    condition: "A calendar or provider is unavailable, or the outcome is uncertain",
  },
] as const satisfies ReadonlyArray<{ status: number; code: ErrorCode; condition: string }>;

/**
 * The statuses the table pairs with `code`: an `ApiError` of another pair does not compile
 * (`new ApiError("rate-limited", { status: 400, … })` is a type error).
 */
export type ErrorStatus<C extends ErrorCode = ErrorCode> = Extract<
  typeof ERROR_STATUS_CODES[number],
  { code: C }
>["status"];

/**
 * How long inquiries and bookings are kept, in days (then the store deletes them). Published in
 * SECURITY.md and the privacy page.
 */
export const RETENTION_DAYS = 730;

/** The name of a rate-limit policy (spec, Limits). */
export type PolicyName = "read" | "write" | "booking";

/** A fixed-window rate-limit policy: `limit` requests per client per `windowSeconds`. */
export interface RateLimitPolicy {
  /** The policy's name, as sent in `RateLimit-Policy`. */
  name: PolicyName;
  /** Requests allowed per window and client. */
  limit: number;
  /** Window length in seconds. */
  windowSeconds: number;
  /** What the policy applies to, for the index and the OpenAPI document. */
  appliesTo: string;
}

/** The spec's policies with their default quotas (spec, Limits; operators may change `limit`). */
export const RATE_LIMIT_POLICIES: Readonly<Record<PolicyName, RateLimitPolicy>> = {
  read: { name: "read", limit: 120, windowSeconds: 60, appliesTo: "GET and HEAD requests" },
  write: { name: "write", limit: 10, windowSeconds: 60, appliesTo: "POST and other requests" },
  booking: {
    name: "booking",
    limit: 5,
    windowSeconds: 300,
    appliesTo: `POST ${API_BASE_PATH}/booking, in addition to write`,
  },
};

/** ContactInquiry, the request of `POST /api/v1/contact` (spec, Resources). */
export const CONTACT_FIELDS = {
  Name: {
    required: true,
    minLength: 1,
    maxLength: 200,
    description:
      "Sender's full name. The HTML form posts two fields named Name (first and last); they are joined with one space.",
    example: "Ana Sousa",
  },
  Email: {
    required: true,
    maxLength: 320,
    format: "email",
    description: "Reply-to address of the sender.",
    example: "ana@example.pt",
  },
  Message: {
    required: true,
    minLength: 1,
    maxLength: 5000,
    description: "The inquiry: context, goals, timing.",
    example: "A new website for our bakery, in two languages, by spring.",
  },
  Category: {
    required: false,
    maxLength: 100,
    description: "Free text, for example website, branding, product, other.",
    example: "website",
  },
  utm_source: { required: false, maxLength: 200, description: "First-touch UTM source." },
  utm_medium: { required: false, maxLength: 200, description: "UTM medium." },
  utm_campaign: { required: false, maxLength: 200, description: "UTM campaign name." },
  utm_content: { required: false, maxLength: 200, description: "UTM content or ad group." },
  utm_term: { required: false, maxLength: 200, description: "UTM term or keyword." },
  gclid: {
    required: false,
    maxLength: 200,
    description: "Ad click id, persisted from the first landing.",
  },
} as const satisfies FieldSet;

/** One of ContactInquiry's campaign fields: `utm_source` … `utm_term` and `gclid`. */
export type AttributionField = Extract<keyof typeof CONTACT_FIELDS, `utm_${string}` | "gclid">;

function isAttributionField(name: string): name is AttributionField {
  return name.startsWith("utm_") || name === "gclid";
}

/** The campaign fields of ContactInquiry, in the order the field set declares them. */
export const ATTRIBUTION_FIELDS: readonly AttributionField[] = Object.keys(CONTACT_FIELDS)
  .filter(isAttributionField);

/** A validated ContactInquiry: trimmed strings, optional fields absent when empty. */
export type ContactInquiry = FieldValues<typeof CONTACT_FIELDS>;

/** The booking locales (spec, BookingRequest `locale`). */
export const BOOKING_LOCALES = ["pt", "en"] as const;

/** BookingRequest, the request of `POST /api/v1/booking` (spec, Resources). */
export const BOOKING_FIELDS = {
  start: {
    required: true,
    maxLength: 64,
    format: "date-time",
    description:
      `Start of the chosen slot, as listed by GET ${API_BASE_PATH}/booking/slots. Any offset naming the same instant is accepted.`,
    example: "2026-12-01T09:30:00+00:00",
  },
  name: {
    required: true,
    minLength: 2,
    maxLength: 120,
    description: "Attendee name.",
    example: "Ana Sousa",
  },
  email: {
    required: true,
    maxLength: 254,
    format: "email",
    description: "Attendee address.",
    example: "ana@example.pt",
  },
  company: { required: false, maxLength: 160, description: "The attendee's company." },
  topic: {
    required: true,
    minLength: 10,
    maxLength: 2000,
    description: "Subject of the conversation.",
  },
  locale: {
    required: true,
    maxLength: 2,
    enum: BOOKING_LOCALES,
    description: "Language of the conversation and of the invite.",
  },
  website: {
    required: false,
    maxLength: 0,
    description: "Must be absent or empty (a field for spam robots).",
  },
} as const satisfies FieldSet;

/** A validated BookingRequest. */
export type BookingRequest = FieldValues<typeof BOOKING_FIELDS>;

/** Values of BookingResult `status` (the spec leaves them open; the OpenAPI document states them). */
export const BOOKING_STATUSES = ["accepted", "pending"] as const;

/** A documented response of an operation: status, body schema name and meaning. */
export interface OperationResponse {
  /** The HTTP status. */
  status: number;
  /** The schema name under `components.schemas`, or absent for no body. */
  schema?: string;
  /** What the status means for this operation. */
  description: string;
}

/** The request body of an operation (spec, Resources). */
export interface OperationRequestBody {
  /** The schema name under `components.schemas`. */
  schema: string;
  /** The accepted media types, in the order the OpenAPI document lists them. */
  mediaTypes: readonly string[];
  /**
   * The largest accepted body in bytes. A larger body is refused before it is read whole, also
   * when sent chunked without Content-Length.
   */
  maxBytes: number;
  /** What the body is and how it is read, for the OpenAPI document. */
  description: string;
}

/** A query or header parameter of an operation, as the OpenAPI document declares it. */
export interface OperationParameter {
  /** The parameter's name (a header's, in its usual case). */
  name: string;
  /** Where it is sent. */
  in: "query" | "header";
  /** Whether a request must carry it. */
  required: boolean;
  /**
   * What it means. `{timeZone}` stands for the booking schedule's IANA time zone, which the
   * operator chooses: the OpenAPI document fills it in.
   */
  description: string;
  /** The JSON Schema (2020-12) of its value. */
  schema: JsonSchema;
}

/** An operation of the API v1, as documented (spec, Endpoints). */
export interface Operation {
  /** Stable identifier, as in the OpenAPI document and the index. */
  operationId: string;
  /** The HTTP method. */
  method: "GET" | "POST";
  /** The canonical path. */
  path: string;
  /** Permanent unversioned aliases of the path (spec, Versioning 5 and 6). */
  aliases: readonly string[];
  /** One line. */
  summary: string;
  /** Longer text for the OpenAPI document. */
  description: string;
  /** The rate-limit policies that apply, in order. */
  policies: readonly PolicyName[];
  /** The documented responses. */
  responses: readonly OperationResponse[];
  /** The request body, for operations that take one. */
  requestBody?: OperationRequestBody;
  /** The query and header parameters, besides the Origin rule of every POST. */
  parameters?: readonly OperationParameter[];
}

const RATE_LIMITED: OperationResponse = {
  status: 429,
  schema: "ErrorResponse",
  description: "Rate limit exceeded: wait the seconds in Retry-After, then retry.",
};

/**
 * The refusal of a POST sent from another site's page (spec, Endpoints, for bookings; extended to
 * contact: every browser-facing POST has the same Origin rule).
 */
const ORIGIN_REFUSED: OperationResponse = {
  status: 403,
  schema: "ErrorResponse",
  description: "validation-failed: the Origin is not allowed.",
};

/**
 * The `Origin` rule of every POST (the pipeline checks it before any POST is answered): the
 * OpenAPI document lists it first among the parameters of each POST operation.
 */
export const ORIGIN_PARAMETER = {
  name: "Origin",
  in: "header",
  required: false,
  description:
    "Sent by browsers. When present it must be an allowed origin (by default the site's own), or the answer is 403; software that sends no Origin is accepted.",
  // An origin is a scheme, a host of at most 253 characters and a port.
  schema: { type: "string", maxLength: 300 },
} as const satisfies OperationParameter;

/** The most characters of an `Idempotency-Key` header (visible ASCII). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/** An Idempotency-Key: 1 to {@linkcode IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN: RegExp = new RegExp(
  `^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`,
);

/** The media types of a ContactInquiry body (spec, Resources). */
const CONTACT_MEDIA_TYPES = [
  "application/json",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
] as const;

/**
 * Lists items in prose: `a`, `a and b`, `a, b and c`.
 *
 * @param items The items, in order.
 * @returns The items joined by commas, the last by "and".
 */
export function listInWords(items: readonly string[]): string {
  if (items.length < 2) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Every operation of the API v1 (spec, Endpoints), in the order the index lists them. */
export const OPERATIONS = [
  {
    operationId: "getApiIndex",
    method: "GET",
    path: API_BASE_PATH,
    aliases: [API_PREFIX],
    summary: "The machine-readable index of the API",
    description: `Returns the API index. Also served at ${API_PREFIX}. No side effects.`,
    policies: ["read"],
    responses: [{ status: 200, schema: "ApiIndex", description: "The API index." }, RATE_LIMITED],
  },
  {
    operationId: "getHealth",
    method: "GET",
    path: `${API_BASE_PATH}/health`,
    aliases: [`${API_PREFIX}/health`],
    summary: "Liveness probe",
    description:
      `Liveness probe. No side effects; safe at any frequency within the read limit. Legacy alias: GET ${API_PREFIX}/health.`,
    policies: ["read"],
    responses: [
      { status: 200, schema: "HealthResponse", description: "The service is alive." },
      RATE_LIMITED,
    ],
  },
  {
    operationId: "createContactInquiry",
    method: "POST",
    path: `${API_BASE_PATH}/contact`,
    aliases: [`${API_PREFIX}/fuel-contact`],
    summary: "Submit a project inquiry or question to the studio inbox",
    description:
      `Stores a ContactInquiry and routes it to the studio inbox (average reply in 2 to 8 business hours). Accepts ${
        listInWords(CONTACT_MEDIA_TYPES)
      }. Only for genuine inquiries by the person concerned; never for testing or bulk messaging. A request whose Origin header is present must come from an allowed origin (by default the site's own); requests without Origin are accepted. Legacy alias: POST ${API_PREFIX}/fuel-contact.`,
    policies: ["write"],
    responses: [
      { status: 200, schema: "ContactSuccess", description: "Inquiry stored and routed." },
      {
        status: 400,
        schema: "ErrorResponse",
        description:
          `bad-form: the body is not JSON, multipart or urlencoded, does not parse, or is larger than ${
            CONTACT_MAX_BODY_BYTES / 1024
          } KiB. validation-failed: a field is missing or out of bounds; the hint names it.`,
      },
      ORIGIN_REFUSED,
      RATE_LIMITED,
      {
        status: 500,
        schema: "ErrorResponse",
        description: "no-backend: the inquiry could not be stored; retry later or write by e-mail.",
      },
    ],
    requestBody: {
      schema: "ContactInquiry",
      mediaTypes: CONTACT_MEDIA_TYPES,
      maxBytes: CONTACT_MAX_BODY_BYTES,
      description:
        `A ContactInquiry, at most ${CONTACT_MAX_BODY_BYTES} bytes. Strings are trimmed; unknown fields are ignored.`,
    },
  },
  {
    operationId: "listBookingSlots",
    method: "GET",
    path: `${API_BASE_PATH}/booking/slots`,
    aliases: [],
    summary: "Read availability for a {meetingMinutes} minute conversation",
    description:
      "Reads real calendar availability without reserving anything. Results are not cached. Availability can change between reading and booking.",
    policies: ["read"],
    responses: [
      { status: 200, schema: "BookingSlots", description: "Availability keyed by date." },
      {
        status: 400,
        schema: "ErrorResponse",
        description: "validation-failed: invalid month; the hint gives the accepted range.",
      },
      RATE_LIMITED,
      {
        status: 503,
        schema: "ErrorResponse",
        description: "no-backend: a calendar is temporarily unavailable.",
      },
    ],
    parameters: [{
      name: "month",
      in: "query",
      required: true,
      description:
        "The month to list, YYYY-MM, counted in {timeZone}, from the current month to six months ahead.",
      schema: { type: "string", pattern: "^[0-9]{4}-(?:0[1-9]|1[0-2])$" },
    }],
  },
  {
    operationId: "createBooking",
    method: "POST",
    path: `${API_BASE_PATH}/booking`,
    aliases: [],
    summary: "Book a {meetingMinutes} minute conversation",
    description:
      "Creates a real booking and sends calendar invites. Only for meetings requested by the person concerned. A request whose Origin header is present must come from an allowed origin (by default the site's own); requests without Origin are accepted. On 503 do not retry before checking the attendee's mailbox.",
    policies: ["write", "booking"],
    responses: [
      {
        status: 201,
        schema: "BookingResult",
        description: "Booking created: accepted, or pending the team's confirmation.",
      },
      {
        status: 400,
        schema: "ErrorResponse",
        description: "bad-form or validation-failed: invalid booking details.",
      },
      ORIGIN_REFUSED,
      {
        status: 409,
        schema: "ErrorResponse",
        description: "validation-failed: the slot is not available; refresh the availability.",
      },
      { status: 413, schema: "ErrorResponse", description: "bad-form: the request is too large." },
      {
        status: 429,
        schema: "ErrorResponse",
        description:
          "Rate limit exceeded: the client's write or booking quota, or the attendee address's bookings of the day (by default 3, whoever books); wait the seconds in Retry-After, then retry.",
      },
      {
        status: 503,
        schema: "ErrorResponse",
        description:
          "no-backend: a provider is unavailable or the outcome is uncertain; check the attendee's mailbox before any retry.",
      },
    ],
    requestBody: {
      schema: "BookingRequest",
      mediaTypes: ["application/json"],
      maxBytes: BOOKING_MAX_BODY_BYTES,
      description:
        `A BookingRequest, at most ${BOOKING_MAX_BODY_BYTES} bytes (larger bodies are answered 413).`,
    },
    parameters: [{
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        `A key of your choosing, 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (e.g. a UUID): a repeat with the same key and body within 24 hours replays the first answer; the same key with another body is a 400.`,
      schema: {
        type: "string",
        minLength: 1,
        maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
        pattern: "^[\\x21-\\x7e]+$",
      },
    }],
  },
] as const satisfies readonly Operation[];

/** The id of one of the API's operations: a typo does not compile. */
export type OperationId = typeof OPERATIONS[number]["operationId"];

/** The id of an operation that takes a request body. */
export type BodyOperationId = Extract<
  typeof OPERATIONS[number],
  { requestBody: OperationRequestBody }
>["operationId"];

/**
 * Finds the request body of an operation that takes one.
 *
 * @param operationId The operation's id.
 * @returns Its schema name, media types, largest size and description.
 */
export function getRequestBody(operationId: BodyOperationId): OperationRequestBody {
  const body = getOperation(operationId).requestBody;
  // BodyOperationId names only operations declared with a body.
  if (!body) throw new Error(`Operation "${operationId}" has no request body`);
  return body;
}

/**
 * Largest accepted request bodies in bytes, by operation id (each operation's
 * `requestBody.maxBytes`). Larger bodies are refused with 413 before they are read whole, also
 * when sent chunked without Content-Length.
 */
export const MAX_BODY_BYTES: Readonly<Record<BodyOperationId, number>> = buildMaxBodyBytes();

function buildMaxBodyBytes(): Record<BodyOperationId, number> {
  const limits: Partial<Record<BodyOperationId, number>> = {};
  for (const operation of OPERATIONS) {
    if ("requestBody" in operation) limits[operation.operationId] = operation.requestBody.maxBytes;
  }
  // The loop visits every operation with a body, so every BodyOperationId has its limit.
  return limits as Record<BodyOperationId, number>;
}

/** Finds an operation by its id; throws `Error` for an unknown id (a programming error). */
export function getOperation(operationId: OperationId): Operation {
  const operation: Operation | undefined = OPERATIONS.find((item) =>
    item.operationId === operationId
  );
  if (!operation) throw new Error(`Unknown operation: "${operationId}"`);
  return operation;
}

/**
 * Finds a query or header parameter of an operation by its name; throws `Error` when the operation
 * has none of that name (a programming error).
 */
export function getParameter(operationId: OperationId, name: string): OperationParameter {
  const parameter = getOperation(operationId).parameters?.find((item) => item.name === name);
  if (!parameter) throw new Error(`Unknown parameter of "${operationId}": "${name}"`);
  return parameter;
}

/**
 * What a parameter means for a booking schedule: its description with `{timeZone}` filled in, as
 * the OpenAPI document, the MCP tools and the booking page's WebMCP tool state it.
 *
 * @param parameter The parameter, e.g. `getParameter("listBookingSlots", "month")`.
 * @param timeZone The schedule's IANA time zone.
 * @returns The description.
 */
export function buildParameterDescription(parameter: OperationParameter, timeZone: string): string {
  return parameter.description.replaceAll("{timeZone}", timeZone);
}

/**
 * An operation's summary for a booking schedule: `{meetingMinutes}` filled in with the length of
 * its conversations, as the OpenAPI document, the API index and the API reference state it.
 *
 * @param operation The operation, e.g. of `OPERATIONS`.
 * @param meetingMinutes The schedule's meeting length, minutes (e.g. 30).
 * @returns The summary, e.g. "Book a 30 minute conversation".
 */
export function buildOperationSummary(
  operation: Pick<Operation, "summary">,
  meetingMinutes: number,
): string {
  return operation.summary.replaceAll("{meetingMinutes}", String(meetingMinutes));
}
