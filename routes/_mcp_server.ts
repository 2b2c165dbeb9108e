/**
 * The MCP server of `POST /mcp`: its tools are thin calls into the services the API's routes call
 * (the slot listing, `createBooking`, `submitInquiry`), validated by the contract's field
 * declarations and counted against the same rate-limit policies as the matching API operation.
 *
 * Internal to routes/: `routes/mcp.ts` loads the SDK on the endpoint's first request and calls
 * {@linkcode createMcpServers} then, once. The tools, their schemas, the resources and the prompt
 * are built in that call and registered once on each instance of the SDK's `McpServer`; the SDK's
 * transports connect an instance to one exchange at a time, and an instance serves exchange after
 * exchange (one instance stays connected to the endpoint's shared connection instead, which serves
 * many exchanges at a time). Nothing about the caller lives on an instance: a tool reads the
 * client's rate-limit key from the request's `authInfo` (which the endpoint sets) and the
 * `User-Agent` from the request itself, both of which the SDK hands to every handler in its
 * context. Every tool takes exactly its fields and declares the schema of what it answers
 * (`lib/mcp/tool_output_schemas.ts`).
 *
 * @module
 */
import type {
  AuthInfo,
  CallToolResult,
  McpServer,
  McpServerOptions,
  ServerContext,
  StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { ApiError, INTERNAL_ERROR_MESSAGE } from "../lib/contract/api_error.ts";
import {
  API_BASE_PATH,
  API_DOCS_PATH,
  BOOKING_FIELDS,
  buildParameterDescription,
  CONTACT_FIELDS,
  type ContactInquiry,
  getParameter,
  LLMS_PATH,
  MCP_SERVER_VERSION,
  OPENAPI_PATH,
  type PolicyName,
  toLlmsPath,
} from "../lib/contract/contract.ts";
import {
  buildJsonSchema,
  buildStruct,
  type FieldSet,
  type FieldValues,
  validateFields,
} from "../lib/contract/fields.ts";
import { createBooking } from "../lib/booking/bookings.ts";
import { submitInquiry } from "../lib/contact/inquiries.ts";
import { toRetryAfterSeconds } from "../lib/http/create_request_counter.ts";
import { toSkillPath } from "../lib/site/site.ts";
import { toSkillText } from "../lib/site/build_skills_index.ts";
import {
  MCP_CAPABILITIES,
  MCP_PROTOCOL_VERSIONS,
  MCP_SERVER_DESCRIPTION,
} from "../lib/mcp/build_server_card.ts";
import {
  BOOKING_TOOL_OUTPUT_SCHEMA,
  INFO_TOOL_OUTPUT_SCHEMA,
  INQUIRY_TOOL_OUTPUT_SCHEMA,
  SLOTS_TOOL_OUTPUT_SCHEMA,
  type ToolJsonSchema,
} from "../lib/mcp/tool_output_schemas.ts";
import { createKnownJson, type KnownJson } from "../lib/mcp/create_known_json.ts";
import { toZoneName } from "../lib/availability/to_zone_name.ts";
import { traceToolCall } from "../lib/telemetry/telemetry.ts";
import type { SiteServices } from "../lib/services.ts";
import { type BookingSlots, checkMonth, listSlots, MONTHS_AHEAD } from "./booking.ts";

/** The rules of use (spec, "Rules of use"), carried by every tool that writes. */
export const RULES_OF_USE =
  "Only for genuine requests made by the person concerned, or at their request, with their own name and e-mail address; never for testing, never for bulk or automated messages.";

/** The tool's view of ContactInquiry: the contract's fields, named in lower case. */
const INQUIRY_TOOL_FIELDS = {
  name: CONTACT_FIELDS.Name,
  email: CONTACT_FIELDS.Email,
  message: CONTACT_FIELDS.Message,
  category: CONTACT_FIELDS.Category,
  utm_source: CONTACT_FIELDS.utm_source,
  utm_medium: CONTACT_FIELDS.utm_medium,
  utm_campaign: CONTACT_FIELDS.utm_campaign,
  utm_content: CONTACT_FIELDS.utm_content,
  utm_term: CONTACT_FIELDS.utm_term,
  gclid: CONTACT_FIELDS.gclid,
} as const satisfies FieldSet;

/** The tool's view of BookingRequest: the contract's fields but the spam trap `website`. */
const BOOKING_TOOL_FIELDS = {
  start: BOOKING_FIELDS.start,
  name: BOOKING_FIELDS.name,
  email: BOOKING_FIELDS.email,
  company: BOOKING_FIELDS.company,
  topic: BOOKING_FIELDS.topic,
  locale: BOOKING_FIELDS.locale,
} as const satisfies FieldSet;

/**
 * The argument of `list_available_slots`, described as the API's `month` parameter is for the
 * schedule's zone.
 *
 * @param timeZone The schedule's IANA time zone.
 */
function buildMonthFields(timeZone: string) {
  return {
    month: {
      required: true,
      maxLength: 7,
      description: buildParameterDescription(getParameter("listBookingSlots", "month"), timeZone),
      example: "2026-12",
    },
  } as const satisfies FieldSet;
}

/**
 * A Standard Schema (with its JSON Schema) made from a field set: the JSON Schema is the one the
 * OpenAPI document declares, closed to other members (a tool's arguments are exactly its
 * fields), and validation is the API's own, so a refused argument gets the same hint as the same
 * field sent to the API.
 */
function toToolSchema<F extends FieldSet>(fields: F): StandardSchemaWithJSON<FieldValues<F>> {
  const struct = buildStruct(fields);
  const names = Object.keys(fields);
  // A tool without arguments takes `{}` (and the note on cleaning text fields has nothing to say).
  const jsonSchema = names.length
    ? { ...buildJsonSchema(fields), additionalProperties: false }
    : { type: "object", properties: {}, additionalProperties: false };
  const expected = names.length
    ? `use only ${names.map((name) => `"${name}"`).join(", ")}`
    : "send {}";
  return {
    "~standard": {
      version: 1,
      vendor: "studio-website",
      validate(value: unknown) {
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          return { issues: [{ message: "Send the arguments as a JSON object" }] };
        }
        for (const name in value) {
          if (!Object.hasOwn(fields, name)) {
            const quoted = JSON.stringify(name.slice(0, 40));
            return {
              issues: [{
                message: `Remove ${quoted}: not an argument of this tool (${expected})`,
                path: [name],
              }],
            };
          }
        }
        const result = validateFields(fields, struct, value as Record<string, unknown>);
        if (result.ok) return { value: result.value };
        return {
          issues: result.problems.map((problem) => ({
            message: problem.hint,
            path: [problem.field],
          })),
        };
      },
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

/**
 * The output schema of a tool: its JSON Schema, listed with the tool. What a tool answers is
 * built by our own code from the contract's bodies and not checked again at each call (a test
 * checks every result against its schema); the SDK skips the check of tool errors anyway.
 */
function toOutputSchema(
  jsonSchema: ToolJsonSchema,
): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "studio-website",
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

/** A tool's successful result: the API's body as text and as structured content. */
function toResult(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

/** A tool error (`isError`): what went wrong and what to do, for the model and for people. */
function toToolError(
  code: string,
  status: number,
  message: string,
  hint: string,
): CallToolResult {
  const body = { ok: false, error: { code, status, message, hint } };
  return {
    content: [{ type: "text", text: `${message} (${status} ${code}): ${hint}` }],
    structuredContent: body,
    isError: true,
  };
}

/** The SDK's module, loaded on the first request to `/mcp`. */
export type McpSdk = typeof import("@modelcontextprotocol/server");

/** Who is calling, as a tool reads it from its request's context. */
interface McpCaller {
  /** The client's rate-limit key (IPv4 address or IPv6 /64), as the pipeline read it. */
  clientKey: string;
  /** The `User-Agent` header, stored with an inquiry as the API stores it. */
  userAgent?: string;
}

/**
 * The client's rate-limit key in the form the SDK hands to tool handlers (`ctx.http.authInfo`):
 * `authInfo` is its one pass-through from the caller of `fetch` to the handlers. No token is
 * involved: the endpoint is public.
 *
 * @param clientKey The pipeline's client key.
 * @returns The `authInfo` to pass to the SDK's handler with the request.
 */
export function toAuthInfo(clientKey: string): AuthInfo {
  return { token: "", clientId: clientKey, scopes: [] };
}

/** Reads the caller of a tool from its context: the endpoint's `authInfo` and the request. */
function readCaller(context: ServerContext): McpCaller {
  return {
    clientKey: context.http?.authInfo?.clientId ?? "unknown",
    userAgent: context.http?.req?.headers.get("User-Agent") ?? undefined,
  };
}

/** One tool, resource or prompt: built once, then registered on each new instance. */
type Registration = (server: McpServer) => void;

/** Runs a tool's work for a caller after counting it against the policies (see below). */
type ToolRunner = (
  caller: McpCaller,
  policies: readonly PolicyName[],
  work: () => Promise<CallToolResult>,
  explain?: (error: ApiError) => string,
) => Promise<CallToolResult>;

/**
 * Creates the runner every tool that reads or writes goes through: it counts the call against the
 * caller's quotas (a refusal says when to retry), then turns an `ApiError` into a tool error and
 * anything else into a fixed one, whose detail only the logger sees.
 */
function createToolRunner(services: SiteServices): ToolRunner {
  const { content } = services;

  async function admit(
    clientKey: string,
    policies: readonly PolicyName[],
  ): Promise<CallToolResult | undefined> {
    const decision = await services.rateLimiter.consume(
      clientKey,
      policies.map((name) => services.policies[name]),
    );
    if (!decision.exceeded) return undefined;
    const seconds = toRetryAfterSeconds(decision);
    return toToolError(
      "rate-limited",
      429,
      "Too many requests from this client",
      `Retry in ${seconds} seconds (the "${
        policies.join('" and "')
      }" quotas of the API apply to this tool)`,
    );
  }

  return async (caller, policies, work, explain = (error) => error.hint) => {
    const refused = await admit(caller.clientKey, policies);
    if (refused) return refused;
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError) {
        return toToolError(error.code, error.status, error.message, explain(error));
      }
      services.logger.error("Unexpected failure of an MCP tool", {
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return toToolError(
        "internal-error",
        500,
        INTERNAL_ERROR_MESSAGE,
        `Retry later; if it persists, write to ${content.email}`,
      );
    }
  };
}

/** The annotations of a tool that writes to the studio (it is never safe to repeat). */
const WRITE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * Whether a listing names the same slots as a kept one, in the same order (so its JSON is the
 * kept one's). Index loops, not iterators: this runs on every call and must not allocate.
 *
 * @param listing The listing just read.
 * @param kept The kept listing, with its days in order.
 */
function isSameListing(listing: BookingSlots, kept: { listing: BookingSlots; days: string[] }) {
  if (listing.timeZone !== kept.listing.timeZone) return false;
  let count = 0;
  for (const day in listing.slots) {
    if (day !== kept.days[count++]) return false;
    const slots = listing.slots[day];
    const keptSlots = kept.listing.slots[day];
    if (slots.length !== keptSlots.length) return false;
    for (let index = 0; index < slots.length; index++) {
      if (slots[index].start !== keptSlots[index].start) return false;
    }
  }
  return count === kept.days.length;
}

/**
 * Creates the tool result of a month's listing: the listing as structured content, and as text
 * its JSON, which is kept per month and serialised again only when the listing has changed (a
 * comparison of the slots' starts costs a fraction of serialising them). The JSON of the kept
 * listing, of its slots and of its text goes to the known JSON, so that the answer that carries
 * them (twice: as text and as structured content) is not serialised again either.
 */
function createListingResults(
  knownJson: KnownJson,
): (month: string, listing: BookingSlots) => CallToolResult {
  const texts = new Map<string, { listing: BookingSlots; days: string[]; text: string }>();
  return (month, listing) => {
    let kept = texts.get(month);
    if (!kept || !isSameListing(listing, kept)) {
      kept = { listing, days: Object.keys(listing.slots), text: JSON.stringify(listing) };
      // Only checked months get here, at most MONTHS_AHEAD + 1 at a time.
      if (texts.size > MONTHS_AHEAD) texts.clear();
      texts.set(month, kept);
      // The 2026-07-28 checks of a result keep the structured content as it is; the 2025 ones
      // copy its top level, whose members are the listing's own.
      knownJson.remember(listing, kept.text);
      knownJson.remember(listing.slots, JSON.stringify(listing.slots));
      knownJson.remember(kept.text, JSON.stringify(kept.text));
    }
    // The kept listing, not the one just read: the SDK's checks of the answer keep what they
    // looked at until the next full collection, and the kept one is already among the old.
    return { content: [{ type: "text", text: kept.text }], structuredContent: kept.listing };
  };
}

/** `list_available_slots`: `GET /api/v1/booking/slots`, counted against `read`. */
function buildSlotsTool(
  services: SiteServices,
  run: ToolRunner,
  knownJson: KnownJson,
): Registration {
  const { timeZone, meetingMinutes } = services.schedule;
  const zoneName = toZoneName(timeZone, { locale: "en", at: services.clock.now() });
  const config = {
    title: "List free times for a conversation",
    description:
      `Lists the free ${meetingMinutes}-minute slots of one month for a conversation with the studio, in ${zoneName} (${timeZone}), as GET /api/v1/booking/slots does. Reading reserves nothing, and availability can change before booking. Counts against the API's read quota.`,
    inputSchema: toToolSchema(buildMonthFields(timeZone)),
    outputSchema: toOutputSchema(SLOTS_TOOL_OUTPUT_SCHEMA),
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  const toListingResult = createListingResults(knownJson);
  const handler = ({ month }: { month: string }, context: ServerContext) =>
    run(readCaller(context), ["read"], async () => {
      const checked = checkMonth([month], services.clock.now(), timeZone);
      return toListingResult(checked, await listSlots(services, checked));
    });
  return (server) =>
    server.registerTool(
      "list_available_slots",
      config,
      traceToolCall("list_available_slots", handler),
    );
}

/** What `book_call` tells the model to do after each refusal the booking service can give. */
function explainBookingError(error: ApiError, email: string): string {
  if (error.status === 409) {
    return "Call list_available_slots again and choose another start; nothing was booked";
  }
  if (error.status === 503) {
    return `Do not call book_call again yet: the booking may have been made. Ask the attendee to check their mailbox for an invitation; if none arrives within 15 minutes, write to ${email}`;
  }
  if (error.status === 429 && error.headers["Retry-After"]) {
    return `${error.hint} (retry in ${error.headers["Retry-After"]} seconds)`;
  }
  return error.hint;
}

/** `book_call`: `POST /api/v1/booking`, counted against `write` and `booking`. */
function buildBookingTool(services: SiteServices, run: ToolRunner): Registration {
  const config = {
    title: `Book a ${services.schedule.meetingMinutes}-minute conversation`,
    description:
      `Books a real ${services.schedule.meetingMinutes}-minute conversation with the studio and e-mails calendar invitations to the attendee and the studio, as POST /api/v1/booking does. ${RULES_OF_USE} Use a start exactly as list_available_slots gave it. The result's status is "accepted" or "pending" (the team confirms by e-mail). If the slot is no longer available, call list_available_slots again and choose another. If the outcome is uncertain (a 503), do not call book_call again: ask the attendee to check their mailbox first. Counts against the API's write and booking quotas.`,
    inputSchema: toToolSchema(BOOKING_TOOL_FIELDS),
    outputSchema: toOutputSchema(BOOKING_TOOL_OUTPUT_SCHEMA),
    annotations: WRITE_ANNOTATIONS,
  };
  const explain = (error: ApiError) => explainBookingError(error, services.content.email);
  const handler = (fields: FieldValues<typeof BOOKING_TOOL_FIELDS>, context: ServerContext) => {
    const caller = readCaller(context);
    return run(caller, ["write", "booking"], async () => {
      const result = await createBooking(services, fields, {
        origin: { clientAddress: caller.clientKey },
      });
      return toResult({ ...result });
    }, explain);
  };
  return (server) => server.registerTool("book_call", config, traceToolCall("book_call", handler));
}

/** The tool's arguments as the ContactInquiry the API reads, without the empty optional fields. */
function toInquiry(fields: FieldValues<typeof INQUIRY_TOOL_FIELDS>): ContactInquiry {
  return {
    Name: fields.name,
    Email: fields.email,
    Message: fields.message,
    ...(fields.category ? { Category: fields.category } : {}),
    ...(fields.utm_source ? { utm_source: fields.utm_source } : {}),
    ...(fields.utm_medium ? { utm_medium: fields.utm_medium } : {}),
    ...(fields.utm_campaign ? { utm_campaign: fields.utm_campaign } : {}),
    ...(fields.utm_content ? { utm_content: fields.utm_content } : {}),
    ...(fields.utm_term ? { utm_term: fields.utm_term } : {}),
    ...(fields.gclid ? { gclid: fields.gclid } : {}),
  };
}

/** `send_inquiry`: `POST /api/v1/contact`, counted against `write`. */
function buildInquiryTool(services: SiteServices, run: ToolRunner): Registration {
  const config = {
    title: "Send the studio an inquiry",
    description:
      `Sends a project inquiry or a question to the studio's inbox, as POST /api/v1/contact does; the studio replies by e-mail to the given address within 2 to 8 business hours. ${RULES_OF_USE} Counts against the API's write quota.`,
    inputSchema: toToolSchema(INQUIRY_TOOL_FIELDS),
    outputSchema: toOutputSchema(INQUIRY_TOOL_OUTPUT_SCHEMA),
    annotations: WRITE_ANNOTATIONS,
  };
  const handler = (fields: FieldValues<typeof INQUIRY_TOOL_FIELDS>, context: ServerContext) => {
    const caller = readCaller(context);
    return run(caller, ["write"], async () => {
      await submitInquiry(services, toInquiry(fields), {
        clientAddress: caller.clientKey,
        userAgent: caller.userAgent,
      });
      return toResult({ ok: true });
    });
  };
  return (server) =>
    server.registerTool("send_inquiry", config, traceToolCall("send_inquiry", handler));
}

/** `get_studio_info`: the studio's facts, the same for every caller, so built once whole. */
function buildInfoTool(services: SiteServices): Registration {
  const { baseUrl, content } = services;
  const config = {
    title: "Read the studio's facts",
    description:
      "The studio's name, languages, reply time, time zone, contact fallback for people and the rules of use of the booking and inquiry tools. No side effects.",
    inputSchema: toToolSchema({}),
    outputSchema: toOutputSchema(INFO_TOOL_OUTPUT_SCHEMA),
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  const result = toResult({
    name: content.name,
    description: content.languages.en.summary,
    languages: [
      { code: "en", name: content.languages.en.label },
      { code: "pt", name: content.languages.pt.label },
    ],
    replyTime: "2 to 8 business hours",
    timeZone: services.schedule.timeZone,
    meetingMinutes: services.schedule.meetingMinutes,
    contact: {
      email: content.email,
      address: content.address,
      page: baseUrl +
        (content.pages.find((page) => page.layout === "contact" && page.language === "en")
          ?.path ?? "/en"),
    },
    rulesOfUse: [
      `Booking and inquiries: ${RULES_OF_USE}`,
      "After an uncertain booking outcome (503), do not retry blindly: check the attendee's mailbox first.",
      "After a rate-limit refusal, wait the seconds it gives.",
    ],
    links: {
      agents: baseUrl + API_DOCS_PATH,
      api: baseUrl + API_BASE_PATH,
      openapi: baseUrl + OPENAPI_PATH,
      llms: baseUrl + LLMS_PATH,
    },
  });
  return (server) =>
    server.registerTool("get_studio_info", config, traceToolCall("get_studio_info", () => result));
}

/** The resources: the agents' guide (llms.txt, read from the site when asked) and the skills. */
function buildResources(services: SiteServices): Registration[] {
  const { baseUrl, content } = services;
  const decoder = new TextDecoder();
  const guideUri = baseUrl + toLlmsPath("en");
  const guideMetadata = {
    title: "Guide for agents (llms.txt)",
    description: "The site's index for software: the recipe for agents, the rules of use, links.",
    mimeType: "text/markdown",
  };
  const guide: Registration = (server) =>
    server.registerResource("agent-guide", guideUri, guideMetadata, async (uri) => ({
      contents: [{
        uri: uri.href,
        mimeType: "text/markdown",
        text: decoder.decode((await services.site()).llms.en.body),
      }],
    }));
  const skills = (content.skills ?? []).map((skill): Registration => {
    const uri = baseUrl + toSkillPath(skill.name);
    const metadata = {
      title: `Agent Skill: ${skill.name}`,
      description: skill.description,
      mimeType: "text/markdown",
    };
    const contents = [{ uri, mimeType: "text/markdown", text: toSkillText(skill, baseUrl) }];
    return (server) =>
      server.registerResource(`skill-${skill.name}`, uri, metadata, () => ({ contents }));
  });
  return [guide, ...skills];
}

/** The prompt `book_a_conversation`: the booking recipe, told as the person being helped. */
function buildPrompt(services: SiteServices): Registration {
  const { content } = services;
  const { timeZone, meetingMinutes } = services.schedule;
  const zoneName = toZoneName(timeZone, { locale: "en", at: services.clock.now() });
  const config = {
    title: "Book a conversation with the studio",
    description:
      `Guides the booking of a ${meetingMinutes}-minute conversation with the studio for the person you are helping.`,
  };
  const text = [
    `I would like to book a ${meetingMinutes}-minute conversation with ${content.name}, the design studio.`,
    "First ask me for my name, my e-mail address, what I would like to talk about (at least 10 characters), the language (English or Portuguese) and the month that suits me.",
    `Then call list_available_slots for that month and let me choose one of the free times, shown in ${zoneName} (${timeZone}).`,
    "Then call book_call with the start exactly as listed and tell me the result's status.",
    "If the slot is no longer available, list the free times again and let me choose another.",
    "If the outcome is uncertain, do not book again: tell me to check my mailbox for an invitation first.",
    `Book only for me, at my request. If anything fails, I can write to ${content.email}.`,
  ].join("\n");
  const messages = [{ role: "user" as const, content: { type: "text" as const, text } }];
  return (server) => server.registerPrompt("book_a_conversation", config, () => ({ messages }));
}

/** The server's identity and instructions, as `initialize` and `server/discover` answer them. */
function buildServerIdentity(
  services: SiteServices,
): { info: ConstructorParameters<typeof McpServer>[0]; options: McpServerOptions } {
  const { baseUrl, content } = services;
  return {
    info: {
      name: content.name,
      title: `${content.name}: bookings and inquiries`,
      version: MCP_SERVER_VERSION,
      description: MCP_SERVER_DESCRIPTION,
      websiteUrl: baseUrl + API_DOCS_PATH,
    },
    options: {
      // Exactly what the server card lists (the capabilities are copied for each instance).
      supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
      instructions:
        `${content.name}: ${content.languages.en.tagline}. Use list_available_slots, then book_call, to book a ${services.schedule.meetingMinutes}-minute conversation; send_inquiry to write to the studio; get_studio_info for its facts. ${RULES_OF_USE} After an uncertain booking outcome, never call book_call again before the attendee has checked their mailbox.`,
    },
  };
}

/** The protocol era an instance serves, as the SDK names it. */
export type McpEra = "legacy" | "modern";

/** The server's instances: each built once, then reused, one exchange at a time. */
export interface McpServers {
  /**
   * An idle instance for the era, or a new one with the tools, resources and prompt registered.
   * It goes back among the idle ones when its exchange closes it, unless `reuse` is false.
   *
   * @param options `era`: the protocol era of the exchange; `reuse`: whether the instance may
   *   serve another exchange after this one (@default true).
   * @returns An instance connected to no exchange.
   */
  take(options: { era: McpEra; reuse?: boolean }): McpServer;
  /**
   * A new instance for the era with the tools, resources and prompt registered, for a connection
   * of its own: it never goes among the idle ones.
   */
  build(era: McpEra): McpServer;
  /**
   * The JSON of values that the tools answer again and again (a month's listing), for a
   * connection that serialises the instances' answers itself.
   */
  knownJson: KnownJson;
}

/**
 * The most idle instances kept per era: more than a busy process serves at once, and a bound on
 * the memory a burst of concurrent requests leaves behind.
 */
const MAX_IDLE_SERVERS = 64;

/**
 * Builds the server's tools, schemas, resources and prompt once, and returns the instances that
 * serve them. The SDK connects an instance to one exchange at a time and disconnects it when the
 * exchange ends; an instance is then reused rather than built again. Nothing about a caller lives
 * on an instance (the tools read it from their context), and an era's instances serve only that
 * era, since the SDK binds an instance to the era it serves.
 *
 * @param sdk The SDK's module.
 * @param services The handler's services.
 * @returns The instances, to take one from for each exchange.
 */
export function createMcpServers(sdk: McpSdk, services: SiteServices): McpServers {
  const { info, options } = buildServerIdentity(services);
  const run = createToolRunner(services);
  const knownJson = createKnownJson();
  const registrations = [
    buildSlotsTool(services, run, knownJson),
    buildBookingTool(services, run),
    buildInquiryTool(services, run),
    buildInfoTool(services),
    ...buildResources(services),
    buildPrompt(services),
  ];
  /** An instance and whether it goes back among the idle ones when its exchange ends. */
  interface Instance {
    server: McpServer;
    reuse: boolean;
  }
  const idle: Record<McpEra, Instance[]> = { legacy: [], modern: [] };

  function create(era: McpEra): Instance {
    const capabilities = structuredClone(MCP_CAPABILITIES);
    const instance = { server: new sdk.McpServer(info, { ...options, capabilities }), reuse: true };
    for (const register of registrations) register(instance.server);
    // The SDK calls onclose once the exchange's transport has let go of the instance.
    instance.server.server.onclose = () => {
      if (instance.reuse && idle[era].length < MAX_IDLE_SERVERS) idle[era].push(instance);
    };
    return instance;
  }

  return {
    take({ era, reuse = true }) {
      const instance = idle[era].pop() ?? create(era);
      instance.reuse = reuse;
      return instance.server;
    },
    build(era) {
      const instance = create(era);
      instance.reuse = false;
      return instance.server;
    },
    knownJson,
  };
}
