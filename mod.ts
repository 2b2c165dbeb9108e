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
} from "./create_handler.ts";
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
export type { TrustedProxyHeader } from "./lib/http/client_address.ts";
export {
  createRateLimiter,
  type LocalRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimiterOptions,
} from "./lib/http/rate_limit.ts";
export { createKvRateLimiter, type KvRateLimiterOptions } from "./lib/http/kv_rate_limit.ts";
export type { MailAttachment, Mailer, OutgoingMail } from "./lib/mail/mail.ts";

export { buildOpenApiDocument } from "./lib/contract/openapi.ts";
export type { Corpus, CorpusPage, LanguageSettings, PageText } from "./lib/site/corpus.ts";
