/**
 * The studio's website and public API v1 as one fetch handler: a Web `Request` in, a `Response`
 * out, on Deno, Deno Deploy, Node and Bun.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler } from "./mod.ts";
 *
 * const handler = createHandler({ baseUrl: "https://studio.example" });
 * const response = await handler(new Request("https://studio.example/api/v1/health"));
 * assert.equal(response.status, 200);
 * assert.equal(response.headers.get("API-Version"), "1");
 * assert.equal((await response.json()).status, "ok");
 * ```
 *
 * @module
 */
export {
  CONSOLE_LOGGER,
  createHandler,
  type Handler,
  type HandlerInfo,
  type HandlerOptions,
  type ResponsePromise,
} from "./compose/create_handler.ts";
export type { Clock, Logger } from "./lib/ports.ts";
export type {
  AtomicCheck,
  AtomicOperation,
  KvCommitResult,
  KvEntry,
  KvEntryMaybe,
  KvKey,
  KvKeyPart,
  KvListOptions,
  KvListSelector,
  KvSetOptions,
  Store,
} from "./lib/store/store.ts";
export type { DeprecationNotice } from "./lib/http/versioning.ts";
export { TRUSTED_PROXY_HEADERS, type TrustedProxyHeader } from "./lib/http/client_address.ts";
export type { PolicyName, RateLimitPolicy } from "./lib/contract/contract.ts";
export {
  createRateLimiter,
  type LocalRateLimiter,
  type PolicyState,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
} from "./lib/http/rate_limit.ts";
export { createKvRateLimiter, type KvRateLimiterOptions } from "./lib/http/kv_rate_limit.ts";
export type { MailAttachment, Mailer, OutgoingMail } from "./lib/mail/mail.ts";
export type { DeliveryReport, Outbox, WebhookDeliveryReport } from "./lib/mail/outbox.ts";
export {
  type BookingEventData,
  type InquiryEventData,
  type QueuedEvent,
  type TestEventData,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
} from "./lib/webhooks/webhook_events.ts";
export type { WebhookEndpoint } from "./lib/webhooks/webhook_store.ts";
export {
  type OpeningInterval,
  type ScheduleSettings,
  WEEKDAYS,
} from "./lib/availability/schedule.ts";
export type { BusyCalendar } from "./lib/availability/busy_calendar.ts";
export type { HolidayTable } from "./lib/availability/holidays.ts";
export type { BusyInterval } from "./lib/availability/availability.ts";

export { buildOpenApiDocument, type OpenApiOptions } from "./lib/contract/openapi.ts";
export {
  type BookingText,
  type ContactFormText,
  type Corpus,
  type CorpusAsset,
  type CorpusDesign,
  type CorpusFile,
  type CorpusPage,
  type CorpusPicture,
  type CorpusProject,
  type CorpusRendition,
  type CorpusSkill,
  type Language,
  LANGUAGES,
  type LanguageSettings,
  type LoadFiles,
  type Notice,
  PAGE_LAYOUTS,
  PAGE_SECTIONS,
  type PageLayout,
  type PageSection,
  type PageText,
  PICTURE_TYPES,
  type PictureType,
  type WorkText,
} from "./lib/site/corpus.ts";
