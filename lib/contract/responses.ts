/**
 * The response bodies of the API v1 (spec, Resources), each declared once as a JSON Schema from
 * which both the OpenAPI document's component and the TypeScript type come (json-schema-to-ts's
 * `FromSchema`), so the two cannot disagree.
 *
 * @module
 */
import type { FromSchema } from "json-schema-to-ts";
import {
  API_BASE_PATH,
  API_VERSION,
  BOOKING_STATUSES,
  OPERATIONS,
  SERVICE_NAME,
} from "./contract.ts";

/** HealthResponse: the liveness probe's answer. */
export const HEALTH_RESPONSE_SCHEMA = {
  type: "object",
  required: ["status", "service", "version", "time"],
  properties: {
    status: { type: "string", const: "ok" },
    service: { type: "string", const: SERVICE_NAME },
    version: { type: "string", const: API_VERSION },
    time: { type: "string", format: "date-time", description: "Server time, UTC." },
  },
} as const;

/** The HealthResponse body. */
export type HealthResponse = FromSchema<typeof HEALTH_RESPONSE_SCHEMA>;

/** One rate-limit policy of the index. */
const POLICY_SCHEMA = {
  type: "object",
  required: ["name", "limit", "windowSeconds"],
  properties: {
    name: { type: "string", enum: ["read", "write", "booking"] },
    limit: { type: "integer", minimum: 1 },
    windowSeconds: { type: "integer", minimum: 1 },
  },
} as const;

/** ApiIndex: the machine-readable index of the API. */
export const API_INDEX_SCHEMA = {
  type: "object",
  required: ["name", "version", "basePath", "openapi", "endpoints", "versioning", "rateLimit"],
  properties: {
    name: { type: "string" },
    version: { type: "string", description: "Current major version." },
    basePath: { type: "string", const: API_BASE_PATH },
    openapi: { type: "string", format: "uri" },
    docs: { type: "string", format: "uri" },
    llms: { type: "string", format: "uri" },
    endpoints: {
      type: "array",
      // Each operation and each of its aliases.
      maxItems: OPERATIONS.length * 2,
      items: {
        type: "object",
        required: ["operationId", "method", "path", "summary"],
        properties: {
          operationId: { type: "string" },
          method: { type: "string", enum: ["GET", "POST"] },
          path: { type: "string" },
          summary: { type: "string" },
        },
      },
    },
    versioning: { type: "object", additionalProperties: true },
    rateLimit: { type: "object", additionalProperties: POLICY_SCHEMA },
    authentication: { type: "string", const: "none" },
  },
} as const;

/** The ApiIndex body. */
export type ApiIndex = FromSchema<typeof API_INDEX_SCHEMA>;

/** ContactSuccess: an inquiry stored and routed. */
export const CONTACT_SUCCESS_SCHEMA = {
  type: "object",
  required: ["ok"],
  properties: { ok: { type: "boolean", const: true } },
} as const;

/** The ContactSuccess body. */
export type ContactSuccess = FromSchema<typeof CONTACT_SUCCESS_SCHEMA>;

/** BookingResult: a booking made, accepted or pending. */
export const BOOKING_RESULT_SCHEMA = {
  type: "object",
  required: ["ok", "status", "start"],
  properties: {
    ok: { type: "boolean", const: true },
    status: {
      type: "string",
      enum: BOOKING_STATUSES,
      description:
        "accepted: the conversation is booked. pending: the slot is held and awaits the team's confirmation.",
    },
    start: { type: "string", format: "date-time" },
  },
} as const;

/** The BookingResult body. */
export type BookingResult = FromSchema<typeof BOOKING_RESULT_SCHEMA>;

/** The most slots a day can list: one every 30 minutes, all day. */
export const MAX_SLOTS_PER_DAY = 48;

/**
 * BookingSlots: the free starts of a month, keyed by date. The OpenAPI document states the
 * schedule's zone as the `const` of `timeZone` (see `buildOpenApiDocument`).
 */
export const BOOKING_SLOTS_SCHEMA = {
  type: "object",
  required: ["ok", "timeZone", "slots"],
  properties: {
    ok: { type: "boolean", const: true },
    timeZone: { type: "string" },
    slots: {
      type: "object",
      propertyNames: { pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
      additionalProperties: {
        type: "array",
        maxItems: MAX_SLOTS_PER_DAY,
        items: {
          type: "object",
          required: ["start"],
          properties: { start: { type: "string", format: "date-time" } },
        },
      },
    },
  },
} as const;

/** The BookingSlots body. */
export type BookingSlots = FromSchema<typeof BOOKING_SLOTS_SCHEMA>;
