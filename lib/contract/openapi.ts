/**
 * The OpenAPI 3.1 description of the API v1, built from the contract's single sources (fields,
 * operations, policies, error codes), so the document and the validators cannot disagree.
 *
 * @module
 */
import {
  API_BASE_PATH,
  API_DOCS_PATH,
  API_PREFIX,
  API_VERSION,
  BOOKING_FIELDS,
  buildOperationSummary,
  buildParameterDescription,
  CONTACT_FIELDS,
  ERROR_CODES,
  ERROR_STATUS_CODES,
  listInWords,
  MIN_SUNSET_DAYS,
  OPENAPI_DOCUMENT_VERSION,
  type Operation,
  type OperationRequestBody,
  OPERATIONS,
  ORIGIN_PARAMETER,
  type PolicyName,
  type RateLimitPolicy,
} from "./contract.ts";
import { buildJsonSchema, type JsonSchema } from "./fields.ts";
import {
  API_INDEX_SCHEMA,
  BOOKING_RESULT_SCHEMA,
  BOOKING_SLOTS_SCHEMA,
  CONTACT_SUCCESS_SCHEMA,
  HEALTH_RESPONSE_SCHEMA,
} from "./responses.ts";

/** Options of {@linkcode buildOpenApiDocument}. */
export interface OpenApiOptions {
  /** The public origin, used as the server URL. */
  baseUrl: string;
  /** The policies with the operator's quotas. */
  policies: Readonly<Record<PolicyName, RateLimitPolicy>>;
  /** The IANA time zone of the booking schedule, in which slots are listed and months counted. */
  timeZone: string;
  /** The length of a booked conversation, minutes (the schedule's `meetingMinutes`). */
  meetingMinutes: number;
  /** The studio's address for questions about the API (`info.contact.email`), e.g. its inbox. */
  contactEmail: string;
}

const COMMON_HEADERS = {
  "RateLimit-Policy": {
    description:
      'The quota policies that apply: each policy name in double quotes, then ;q=<limit>;w=<window seconds>, for example "read";q=120;w=60 (a Structured Fields List).',
    schema: { type: "string" },
    required: true,
  },
  "RateLimit": {
    description:
      'The state of each policy: the name in double quotes, then ;r=<remaining>;t=<seconds until reset>, for example "read";r=119;t=42.',
    schema: { type: "string" },
    required: true,
  },
  "RateLimit-Limit": {
    description:
      "Requests allowed per window, of the policy nearest exhaustion where two policies apply.",
    schema: { type: "integer", minimum: 1 },
    required: true,
  },
  "RateLimit-Remaining": {
    description: "Requests left in the window, of that policy.",
    schema: { type: "integer", minimum: 0 },
    required: true,
  },
  "RateLimit-Reset": {
    description: "Seconds until that policy's window resets.",
    schema: { type: "integer", minimum: 1 },
    required: true,
  },
  "API-Version": {
    description: `The API's major version: always ${API_VERSION} here.`,
    schema: { type: "string", const: API_VERSION },
    required: true,
  },
  "Deprecation": {
    description:
      "Sent once v1 is deprecated: the moment as a Structured Fields Date, @<epoch seconds> (RFC 9745).",
    schema: { type: "string", pattern: "^@-?[0-9]+$" },
  },
  "Sunset": {
    description:
      `Sent once v1 is deprecated: when it stops, as an HTTP-date (RFC 8594), at least ${MIN_SUNSET_DAYS} days after Deprecation.`,
    schema: { type: "string" },
  },
  "Link": {
    description:
      'rel="latest-version" on the unversioned aliases; rel="sunset" to the migration notes once v1 is deprecated.',
    schema: { type: "string" },
  },
};

const RETRY_AFTER = {
  description: "Seconds to wait before retrying; never before the exceeded window ends.",
  schema: { type: "integer", minimum: 1 },
  required: true,
};

function headerRefs(status: number): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const name of Object.keys(COMMON_HEADERS)) {
    headers[name] = { $ref: `#/components/headers/${name}` };
  }
  if (status === 429) headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" };
  return headers;
}

/** The content of an ErrorResponse answer. */
const JSON_ERROR = {
  "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } },
} as const;

/** The most fields a request body has: the bound of an ErrorResponse's `details`. */
const MAX_FIELDS = Math.max(Object.keys(CONTACT_FIELDS).length, Object.keys(BOOKING_FIELDS).length);

const ERROR_RESPONSE: JsonSchema = {
  type: "object",
  description: `The body of every failure under ${API_PREFIX}/.`,
  required: ["ok", "error"],
  properties: {
    ok: { type: "boolean", const: false },
    error: {
      type: "object",
      required: ["code", "message", "hint", "docs"],
      properties: {
        code: {
          type: "string",
          enum: [...ERROR_CODES],
          description: "Stable machine-readable identifier; clients branch on it.",
        },
        message: { type: "string", description: "Human-readable description." },
        hint: { type: "string", description: "How to fix the request or where to look next." },
        docs: { type: "string", format: "uri", description: "The OpenAPI document." },
        details: {
          type: "array",
          maxItems: MAX_FIELDS,
          description: "Each failing field of a validation-failed error (additive member).",
          items: {
            type: "object",
            required: ["field", "problem", "hint"],
            properties: {
              field: { type: "string" },
              problem: { type: "string", enum: ["missing", "type", "length", "enum", "format"] },
              hint: { type: "string" },
            },
          },
        },
      },
    },
  },
};

/** An ISO 8601 date-time with an offset. */
const DATE_TIME: JsonSchema = { type: "string", format: "date-time" };

/** The webhook payloads' data (Standard Webhooks 1.0); `lib/webhooks/webhook_events.ts` builds them. */
const WEBHOOK_DATA_SCHEMAS: Record<string, JsonSchema> = {
  InquiryEventData: {
    type: "object",
    description:
      "A contact inquiry as received: its id, time and sender. The message, category aside, stays in the studio's inbox.",
    required: ["id", "receivedAt", "name", "email"],
    additionalProperties: false,
    properties: {
      id: { type: "string", description: "The inquiry's id (a ULID)." },
      receivedAt: { ...DATE_TIME, description: "When it was received (UTC)." },
      name: { type: "string", description: "The sender's name, as written." },
      email: { type: "string", format: "email", description: "The sender's e-mail address." },
      category: { type: "string", description: "The category chosen, if any." },
    },
  },
  BookingEventData: {
    type: "object",
    description:
      "A booking as the event leaves it. The attendee's name and e-mail address travel only in booking.requested and booking.confirmed, which introduce the attendee; the later events name the booking by its id. Topic and company stay in the studio's store.",
    required: ["id", "status", "start", "end", "locale"],
    additionalProperties: false,
    properties: {
      id: { type: "string", description: "The booking's id (a ULID)." },
      status: {
        type: "string",
        enum: ["pending", "accepted", "declined", "cancelled"],
        description: "Its status once the event happened.",
      },
      start: { ...DATE_TIME, description: "Start, with the schedule zone's offset." },
      end: { ...DATE_TIME, description: "End, with the schedule zone's offset." },
      locale: { type: "string", enum: ["pt", "en"], description: "The attendee's language." },
      timeZone: { type: "string", description: "The attendee's IANA time zone, when known." },
      name: {
        type: "string",
        description: "The attendee's name (booking.requested and booking.confirmed only).",
      },
      email: {
        type: "string",
        format: "email",
        description:
          "The attendee's e-mail address (booking.requested and booking.confirmed only).",
      },
      previousStart: {
        ...DATE_TIME,
        description: "booking.rescheduled: the start before the move.",
      },
    },
  },
  TestEventData: {
    type: "object",
    description: "A test event sent from the team's desk.",
    required: ["id", "sentBy"],
    additionalProperties: false,
    properties: {
      id: { type: "string", description: "The test's own id (a ULID)." },
      sentBy: { type: "string", description: "The team member who sent it." },
    },
  },
};

/** Each webhook event: its type, what happened, and the schema of its data. */
const WEBHOOK_EVENTS = [
  ["inquiry.received", "A contact inquiry was received and stored.", "InquiryEventData"],
  [
    "booking.requested",
    "A booking was made and waits for the team's confirmation (STUDIO_CONFIRMATION=manual).",
    "BookingEventData",
  ],
  [
    "booking.confirmed",
    "A booking was accepted: at once (STUDIO_CONFIRMATION=auto), or confirmed by the team.",
    "BookingEventData",
  ],
  ["booking.declined", "The team declined a booking request.", "BookingEventData"],
  ["booking.cancelled", "The attendee or the team cancelled a booking.", "BookingEventData"],
  ["booking.rescheduled", "The attendee moved a booking to another slot.", "BookingEventData"],
  ["webhook.test", "The team sent a test event from the desk.", "TestEventData"],
] as const;

/** The name of an event's payload schema, e.g. `BookingConfirmedEvent`. */
function toEventSchemaName(type: string): string {
  return type.split(/[._]/).map((word) => word[0].toUpperCase() + word.slice(1)).join("") +
    "Event";
}

/** The headers of every webhook request (Standard Webhooks 1.0). */
const WEBHOOK_HEADERS = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description:
      "The delivery's id, the same on every retry of it: a receiver that has seen it can answer 2xx and do nothing.",
    schema: { type: "string", pattern: "^msg_[0-9A-HJKMNP-TV-Z]{26}$" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description:
      "When this attempt was sent, in Unix seconds; receivers reject one more than 5 minutes away from their clock.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "v1, and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the base64-decoded secret after whsec_ (STUDIO_WEBHOOK_SECRET). Verify it with a Standard Webhooks library, e.g. the standardwebhooks npm package.",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$" },
  },
];

/** The OpenAPI 3.1 `webhooks` section and the payload schemas it refers to. */
function buildWebhooks(): {
  webhooks: Record<string, unknown>;
  schemas: Record<string, JsonSchema>;
} {
  const webhooks: Record<string, unknown> = {};
  const schemas: Record<string, JsonSchema> = { ...WEBHOOK_DATA_SCHEMAS };
  for (const [type, happened, data] of WEBHOOK_EVENTS) {
    const name = toEventSchemaName(type);
    schemas[name] = {
      type: "object",
      description: `The payload of ${type}: ${happened}`,
      required: ["type", "timestamp", "data"],
      additionalProperties: false,
      properties: {
        type: { type: "string", const: type },
        timestamp: { ...DATE_TIME, description: "When the event happened (UTC)." },
        data: { $ref: `#/components/schemas/${data}` },
      },
    };
    webhooks[type] = {
      post: {
        operationId: `${
          type.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase())
        }Webhook`,
        summary: `${type}: ${happened.replace(/\.$/, "")}`,
        description:
          `${happened} Sent as a signed POST to each STUDIO_WEBHOOK_URL; stored first and delivered at least once from the outbox.`,
        tags: ["webhooks"],
        parameters: WEBHOOK_HEADERS,
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: {
          "200": { description: "Any 2xx answer delivers the event; the body is ignored." },
          "410": {
            description:
              "Gone: the endpoint is disabled and gets no more events until the team enables it again on the desk.",
          },
          default: {
            description:
              "Any other answer, a redirect, a timeout (10 s) or a network failure: retried with backoff (5 s, doubling, at most an hour apart) for 72 hours, with the same webhook-id.",
          },
        },
      },
    };
  }
  return { webhooks, schemas };
}

function buildSchemas(timeZone: string): Record<string, JsonSchema> {
  const slots = BOOKING_SLOTS_SCHEMA.properties.slots;
  return {
    ErrorResponse: ERROR_RESPONSE,
    HealthResponse: HEALTH_RESPONSE_SCHEMA,
    ApiIndex: API_INDEX_SCHEMA,
    ContactInquiry: buildJsonSchema(CONTACT_FIELDS),
    ContactSuccess: CONTACT_SUCCESS_SCHEMA,
    BookingRequest: buildJsonSchema(BOOKING_FIELDS),
    BookingResult: BOOKING_RESULT_SCHEMA,
    // The schedule's zone, an operator's setting, is stated where the document is built.
    BookingSlots: {
      ...BOOKING_SLOTS_SCHEMA,
      properties: {
        ...BOOKING_SLOTS_SCHEMA.properties,
        timeZone: { type: "string", const: timeZone },
        slots: { ...slots, description: `Keys are calendar dates (YYYY-MM-DD) in ${timeZone}.` },
      },
    },
  };
}

function buildRequestBody(body: OperationRequestBody): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const mediaType of body.mediaTypes) {
    content[mediaType] = { schema: { $ref: `#/components/schemas/${body.schema}` } };
  }
  return { required: true, description: body.description, content };
}

function buildParameters(operation: Operation, timeZone: string): unknown[] | undefined {
  const parameters = [
    ...(operation.method === "POST" ? [ORIGIN_PARAMETER] : []),
    ...(operation.parameters ?? []),
  ];
  if (!parameters.length) return undefined;
  return parameters.map((parameter) => ({
    ...parameter,
    description: buildParameterDescription(parameter, timeZone),
  }));
}

function buildOperationObject(
  operation: Operation,
  options: OpenApiOptions,
  alias?: string,
): Record<string, unknown> {
  const policies = options.policies;
  const responses: Record<string, unknown> = {};
  for (const response of operation.responses) {
    responses[String(response.status)] = {
      description: response.description,
      headers: headerRefs(response.status),
      ...(response.schema
        ? {
          content: {
            "application/json": { schema: { $ref: `#/components/schemas/${response.schema}` } },
          },
        }
        : {}),
    };
  }
  // Every operation can fail unexpectedly (500 internal-error), and any other status a client
  // meets (a 405 for another method at this path, a 404 at a mistyped one) is an ErrorResponse.
  if (!responses["500"]) {
    responses["500"] = {
      description: "internal-error: an unexpected failure of the service; retry later.",
      headers: headerRefs(500),
      content: JSON_ERROR,
    };
  }
  responses.default = {
    description:
      "Any other failure, for example 405 for another method at this path: an ErrorResponse.",
    headers: headerRefs(0),
    content: JSON_ERROR,
  };
  const summary = buildOperationSummary(operation, options.meetingMinutes);
  const quota = operation.policies.map((name) =>
    `${name}: ${policies[name].limit} per ${policies[name].windowSeconds} s`
  ).join("; ");
  const object: Record<string, unknown> = {
    operationId: alias ? `${operation.operationId}ViaAlias` : operation.operationId,
    summary: alias ? `${summary} (alias of ${operation.path})` : summary,
    description: `${operation.description}\n\nRate limits per client address: ${quota}.` +
      (alias
        ? `\n\nA permanent alias of ${operation.path}; answers carry Link: <${operation.path}>; rel="latest-version".`
        : ""),
    tags: [
      operation.path.includes("booking")
        ? "booking"
        : operation.path.includes("contact")
        ? "contact"
        : "service",
    ],
    "x-rate-limit-policies": operation.policies,
    responses,
  };
  const parameters = buildParameters(operation, options.timeZone);
  if (parameters) object.parameters = parameters;
  if (operation.requestBody) object.requestBody = buildRequestBody(operation.requestBody);
  return object;
}

function buildDescription(
  policies: Readonly<Record<PolicyName, RateLimitPolicy>>,
  meetingMinutes: number,
): string {
  const errorRows = ERROR_STATUS_CODES.map((row) =>
    `| ${row.status} | \`${row.code}\` | ${row.condition} |`
  ).join("\n");
  const policyRows = Object.values(policies).map((policy) =>
    `| \`${policy.name}\` | ${policy.appliesTo} | ${policy.limit} | ${policy.windowSeconds} s |`
  ).join("\n");
  return `The public, unauthenticated HTTP API of a design and development studio's website: contact inquiries, availability and bookings of a ${meetingMinutes} minute conversation, health and an index.

## Rules of use

- The contact and booking operations are only for genuine inquiries or meetings requested by the person concerned. They are never for testing or bulk messaging.
- An ambiguous server failure on the booking operation (503) must not be retried blindly: first check the attendee's mailbox.
- No credential is required; clients are identified for rate limiting by client address only (IPv6 per /64).

## Errors

Every failure under ${API_PREFIX}/ is an ErrorResponse. Status and code pair as follows:

| Status | Code | Condition |
|---|---|---|
${errorRows}

## Rate limits

Fixed windows per client address. Every ${API_PREFIX}/ response carries RateLimit-Policy, RateLimit, RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; a 429 adds Retry-After. Where two policies apply both are listed, and the RateLimit-Limit/Remaining/Reset fields report the one nearest exhaustion.

| Policy | Applies to | Limit | Window |
|---|---|---|---|
${policyRows}

## Cross-origin use

The read operations (GET and HEAD) and this document answer every origin: Access-Control-Allow-Origin: *, with the rate-limit, version and ETag fields exposed; their preflights are answered 204 and count against no quota. The POST operations grant no other origin: browsers call them from the studio's own pages (a foreign Origin is answered 403), servers and agents without CORS.

## Versioning

The major version is in the path (${API_BASE_PATH}) and in the API-Version header. Changes within a major are additive. A deprecated major keeps working at least ${MIN_SUNSET_DAYS} days after Deprecation and Sunset are first sent, with Link rel="sunset" to migration notes. ${
    listInWords(OPERATIONS.flatMap((operation) => operation.aliases))
  } are permanent aliases.`;
}

/**
 * Builds the OpenAPI 3.1 document of the API v1 (`info.version` 1.1.0): every operation of the
 * spec and its aliases, every header, every error status with its ErrorResponse, the rules
 * of use, and the webhook events sent to the studio's tools (`webhooks`, Standard Webhooks 1.0).
 *
 * @param options The base URL and the operator's quotas.
 * @returns The document as a plain object, ready for `JSON.stringify`.
 */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const webhooks = buildWebhooks();
  for (const operation of OPERATIONS) {
    const method = operation.method.toLowerCase();
    (paths[operation.path] ??= {})[method] = buildOperationObject(operation, options);
    for (const alias of operation.aliases) {
      (paths[alias] ??= {})[method] = buildOperationObject(operation, options, alias);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Studio Website Public API",
      version: OPENAPI_DOCUMENT_VERSION,
      summary: "Contact, availability and booking of a design and development studio",
      description: buildDescription(options.policies, options.meetingMinutes),
      license: { name: "MIT", identifier: "MIT" },
      contact: {
        name: "The studio",
        url: options.baseUrl + "/",
        // A local address such as the default studio@localhost is not one a reader can write to.
        ...(/@[^@\s]+\.[^@.\s]+$/.test(options.contactEmail)
          ? { email: options.contactEmail }
          : {}),
      },
    },
    externalDocs: { description: "For software and agents", url: options.baseUrl + API_DOCS_PATH },
    servers: [{ url: options.baseUrl }],
    security: [],
    tags: [
      { name: "service", description: "Index and health" },
      { name: "contact", description: "Inquiries to the studio inbox" },
      { name: "booking", description: "Availability and bookings" },
      {
        name: "webhooks",
        description:
          "Events sent to the studio's other tools (Standard Webhooks 1.0), when STUDIO_WEBHOOK_URL is set",
      },
    ],
    paths,
    webhooks: webhooks.webhooks,
    components: {
      schemas: { ...buildSchemas(options.timeZone), ...webhooks.schemas },
      headers: { ...COMMON_HEADERS, "Retry-After": RETRY_AFTER },
    },
  };
}
