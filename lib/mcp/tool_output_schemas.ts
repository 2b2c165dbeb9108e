/**
 * The output schemas of the MCP server's tools: what each tool's `structuredContent` is, declared
 * as its `outputSchema` (MCP, Tools: "Output Schema"). A tool's success is the body the matching
 * API operation answers, whose schema the contract declares once (`lib/contract/responses.ts`);
 * a tool that can fail answers a tool error (`isError`) whose structured content is
 * {@linkcode TOOL_ERROR_SCHEMA}, and its output schema admits either.
 *
 * @module
 */
import { ERROR_CODES } from "../contract/contract.ts";
import {
  BOOKING_RESULT_SCHEMA,
  BOOKING_SLOTS_SCHEMA,
  CONTACT_SUCCESS_SCHEMA,
} from "../contract/responses.ts";

/** A JSON Schema object, as the SDK lists it. */
export type ToolJsonSchema = Record<string, unknown>;

/** The structured content of a tool error: the API's error, as code, status, message and hint. */
const TOOL_ERROR_SCHEMA = {
  type: "object",
  required: ["ok", "error"],
  additionalProperties: false,
  properties: {
    ok: { type: "boolean", const: false },
    error: {
      type: "object",
      required: ["code", "status", "message", "hint"],
      additionalProperties: false,
      properties: {
        code: { type: "string", enum: ERROR_CODES },
        status: { type: "integer", minimum: 400, maximum: 599 },
        message: { type: "string", description: "What went wrong." },
        hint: { type: "string", description: "What to do next." },
      },
    },
  },
} as const;

/**
 * The output schema of a tool that answers `success` or a tool error.
 *
 * @param success The schema of the successful result's structured content (an object).
 * @returns An object schema admitting either.
 */
function orToolError(success: ToolJsonSchema): ToolJsonSchema {
  return { type: "object", anyOf: [success, TOOL_ERROR_SCHEMA] };
}

/** `list_available_slots`: the BookingSlots body, or a tool error. */
export const SLOTS_TOOL_OUTPUT_SCHEMA: ToolJsonSchema = orToolError(BOOKING_SLOTS_SCHEMA);

/** `book_call`: the BookingResult body, or a tool error. */
export const BOOKING_TOOL_OUTPUT_SCHEMA: ToolJsonSchema = orToolError(BOOKING_RESULT_SCHEMA);

/** `send_inquiry`: the ContactSuccess body, or a tool error. */
export const INQUIRY_TOOL_OUTPUT_SCHEMA: ToolJsonSchema = orToolError(CONTACT_SUCCESS_SCHEMA);

/** A string that is an absolute URL. */
const URL_SCHEMA = { type: "string", format: "uri" } as const;

/** `get_studio_info`: the studio's facts (it never fails). */
export const INFO_TOOL_OUTPUT_SCHEMA: ToolJsonSchema = {
  type: "object",
  required: [
    "name",
    "description",
    "languages",
    "replyTime",
    "timeZone",
    "meetingMinutes",
    "contact",
    "rulesOfUse",
    "links",
  ],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    languages: {
      type: "array",
      items: {
        type: "object",
        required: ["code", "name"],
        additionalProperties: false,
        properties: { code: { type: "string", enum: ["en", "pt"] }, name: { type: "string" } },
      },
    },
    replyTime: { type: "string" },
    timeZone: {
      type: "string",
      description: "The IANA time zone of the studio's schedule, in which slots are listed.",
    },
    meetingMinutes: { type: "integer", minimum: 1 },
    contact: {
      type: "object",
      required: ["email", "address", "page"],
      additionalProperties: false,
      properties: {
        email: { type: "string", format: "email" },
        address: { type: "string" },
        page: URL_SCHEMA,
      },
    },
    rulesOfUse: { type: "array", items: { type: "string" } },
    links: {
      type: "object",
      required: ["agents", "api", "openapi", "llms"],
      additionalProperties: false,
      properties: { agents: URL_SCHEMA, api: URL_SCHEMA, openapi: URL_SCHEMA, llms: URL_SCHEMA },
    },
  },
};
