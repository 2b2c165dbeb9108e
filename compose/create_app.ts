/**
 * The runtime-neutral composition root: environment → configuration → store, mailer, outbox and
 * busy calendars → handler, and the server's life (listen, log where, stop on a signal). An
 * operator's command composes its services from the same configuration
 * (`create_operator_services.ts`).
 * What differs between runtimes comes in through {@linkcode AppHost}: how to open the store, how
 * to serve, how to hear signals and exit. The runtime entries (`main.ts` for Deno,
 * `adapters/<runtime>/`) are a few lines each around it.
 *
 * @module
 */
import { type Config, ConfigError, type Environment, readConfig } from "../lib/config.ts";
import { SERVICE_NAME } from "../lib/contract/contract.ts";
import { START_RETRY } from "../lib/store/settings.ts";
import { retry } from "../lib/store/retry.ts";
import { checkDeprecationWindow } from "../lib/http/versioning.ts";
import type { Handler } from "../lib/http/create_pipeline.ts";
import { type HandlerOptions, SYSTEM_CLOCK } from "../lib/resolve_services.ts";
import { composeService } from "./compose_handler.ts";
import { recordStudioAddresses } from "../lib/privacy/studio_addresses.ts";
import {
  createOutbox,
  type Outbox,
  OUTBOX_START_DELAY_MILLISECONDS,
  type WebhookLane,
} from "../lib/mail/outbox.ts";
import { createReminderSweeper, type ReminderSweeper } from "../lib/booking/reminder_sweeper.ts";
import { createSmtpMailer } from "../adapters/smtp_mailer.ts";
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";
import { logRequests } from "../lib/http/log_requests.ts";
import { observeOutbox } from "../lib/telemetry/observe_outbox.ts";
import { isRuntimeTracingQueries } from "../lib/telemetry/telemetry.ts";
import { createLogWriter, type LogWriter } from "../lib/create_log_writer.ts";
import { createJsonLogger, createLogTime } from "../lib/create_json_logger.ts";
import type { Clock, Logger } from "../lib/ports.ts";
import type { Store } from "../lib/store/store.ts";
import { createLazyStore } from "../lib/store/lazy_store.ts";
import {
  type AppHost,
  type AppRuntime,
  CONNECTION_TIMEOUTS,
  type Listening,
  type ServeOptions,
} from "../lib/host.ts";

export type { AppHost, AppRuntime, Listening, OpenStore, ServeOptions } from "../lib/host.ts";
export type { Config, Environment } from "../lib/config.ts";
export type { LogOutput } from "../lib/ports.ts";
export type { LogWriter } from "../lib/create_log_writer.ts";
export type { ReminderSweeper, SweepReport } from "../lib/booking/reminder_sweeper.ts";

/** A started application: the handler and what it holds. */
export interface App {
  /** The checked configuration. */
  config: Config;
  /** The fetch handler. */
  handler: Handler;
  /** The store the handler keeps its data in. */
  store: Store;
  /** The outbox, started (its first pass a second after start; `Deno.cron` may nudge it). */
  outbox: Outbox;
  /**
   * The booking reminders' sweeper, started with the outbox unless `STUDIO_REMINDER_LEAD_MINUTES`
   * is 0 (`Deno.cron` may nudge it); `counts()` tells how many reminders this process queued.
   */
  reminders: ReminderSweeper;
  /**
   * The log's writer (batches on `logOutput`, or `console.log` without one). The host writes its
   * own lines here ("Listening", "Stopped"), so that they keep their place among the request
   * log's.
   */
  log: LogWriter;
  /**
   * Aborts the handler's `signal`: the body reads that watch it (the MCP endpoint's) give up the
   * bodies still arriving and answer 503, so that a server's shutdown, which waits for its open
   * requests, is not held by slow senders. Call it before stopping the server; `close()` does it
   * too.
   */
  interrupt(): void;
  /** Stops background delivery, closes the mailer and the store, and flushes the log. */
  close(): Promise<void>;
}

/** Lines written at once with `console.log`, for a runtime that gives no `logOutput`. */
const CONSOLE_WRITER: LogWriter = Object.freeze({
  write(line: string) {
    console.log(line);
    return true;
  },
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
  end(line: string) {
    console.log(line);
    return Promise.resolve();
  },
});

/**
 * The application's log: lines in batches on the runtime's output where it gives one.
 *
 * @param runtime The runtime's output and the logger it passes, if any.
 * @returns The writer, the time of its lines, and the logger of the services.
 */
function createAppLog(
  runtime: AppRuntime,
): { log: LogWriter; time: () => string; logger: Logger } {
  const log = runtime.logOutput ? createLogWriter(runtime.logOutput) : CONSOLE_WRITER;
  const time = createLogTime();
  // `info` lines join the batches; `warn` and `error` go straight to standard error: they are
  // rare, so writing each at once costs nothing at scale, they must show at once, and the error
  // that comes before a crash must not die in a buffer with the process.
  const logger = runtime.logger ??
    createJsonLogger({ write: log.write, writeError: (line) => console.error(line), time });
  return { log, time, logger };
}

/**
 * Builds the application from environment variables: the checked configuration, the store
 * (`STUDIO_KV_PATH`: a local file by default, created on first start, or a KV Connect URL), the
 * SMTP mailer and outbox (started; with the webhook endpoints of `STUDIO_WEBHOOK_URL`), the
 * booking reminders' sweeper (started unless reminders are off), the busy calendars and the
 * handler.
 *
 * @param env The environment, e.g. `Deno.env.toObject()` or `process.env`.
 * @param runtime How this runtime opens the store.
 * @returns The application; call `close()` to release it.
 * @throws {ConfigError} When a variable is invalid, or `STUDIO_SUNSET` is less than 180 days after
 * the service first sent the deprecation notice (kept in the store: spec Versioning 4).
 */
export async function createApp(env: Environment, runtime: AppRuntime): Promise<App> {
  // Async, so that an invalid variable rejects the promise rather than throwing.
  const config = readConfig(env, { onDenoDeploy: runtime.onDenoDeploy });
  return await createConfiguredApp(config, env, runtime);
}

/**
 * Checks `STUDIO_SUNSET` against when the service first sent the deprecation notice, which the
 * store keeps (spec Versioning 4).
 *
 * @throws {ConfigError} When the sunset is less than 180 days after that first notice.
 */
async function checkSunset(
  store: Store,
  deprecation: NonNullable<Config["deprecation"]>,
  now: Temporal.Instant,
): Promise<void> {
  try {
    await checkDeprecationWindow(store, deprecation, now);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ConfigError("STUDIO_SUNSET", error.message.replace(/^Invalid sunsetAt: /, ""));
  }
}

/** {@linkcode createApp} with the configuration read already (by {@linkcode runApp}). */
async function createConfiguredApp(
  config: Config,
  env: Environment,
  runtime: AppRuntime,
): Promise<App> {
  // Two processes starting at once on one KV file: one may find it locked for a moment.
  const store = await retry(() => runtime.openStore(config.kvPath), START_RETRY);
  const { log, time, logger } = createAppLog(runtime);
  try {
    const clock = SYSTEM_CLOCK;
    if (config.deprecation) await checkSunset(store, config.deprecation, clock.now());
    const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined;
    const webhooks = await createWebhooks(config, { store, clock, logger });
    const outbox = createOutbox({ store, mailer, clock, logger, webhooks });
    const stopOutboxGauges = observeTelemetry(env, { store, clock, logger });
    // Modules only some configurations need are imported by those alone, not by every start.
    const busyCalendar = config.busyCalendars.length
      ? (await import("../lib/availability/busy_calendar.ts")).createIcsCalendar({
        urls: config.busyCalendars,
        defaultTimeZone: DEFAULT_SCHEDULE.timeZone,
        clock,
        logger,
      })
      : undefined;
    const rateLimiter = config.rateLimitStore === "kv"
      ? (await import("../lib/http/kv_rate_limit.ts")).createKvRateLimiter({ store, logger })
      : undefined;
    const stopping = new AbortController();
    const { handler, services } = composeService({
      ...toHandlerOptions(config),
      busyCalendar,
      store,
      clock,
      logger,
      outbox,
      rateLimiter,
      signal: stopping.signal,
    });
    outbox.start(OUTBOX_START_DELAY_MILLISECONDS);
    const reminders = createReminderSweeper({ services });
    if (config.reminderLeadMinutes > 0) reminders.start(OUTBOX_START_DELAY_MILLISECONDS);
    // The studio's own addresses, for the operator's CLI to refuse whatever its environment says
    // (lib/privacy/studio_addresses.ts); when the outbox first looks, since that opens the store.
    // AbortSignal.timeout, as the outbox's start: Deno's first setTimeout loads Node's timers
    // module, some 4 ms that a cold start would pay before its first answer.
    AbortSignal.timeout(OUTBOX_START_DELAY_MILLISECONDS).addEventListener("abort", () => {
      if (stopping.signal.aborted) return;
      recordStudioAddresses(store, services, clock.now()).catch((error) =>
        logger.warn("The studio's addresses could not be recorded", { error: String(error) })
      );
    });
    return {
      config,
      handler: config.log === "info" ? logRequests(handler, { write: log.write, time }) : handler,
      store,
      outbox,
      reminders,
      log,
      interrupt: () => stopping.abort(),
      async close() {
        stopOutboxGauges();
        stopping.abort();
        // Reminders first: a reminder queued while stopping is then in the outbox for next time.
        await reminders.stop();
        await outbox.stop();
        mailer?.close();
        store.close();
        await log.close();
      },
    };
  } catch (error) {
    store.close();
    await log.close();
    throw error;
  }
}

/**
 * The telemetry of the service as a whole: the outbox's gauges (when a meter provider is
 * registered), and a warning when the runtime's own HTTP spans record each request's query.
 *
 * @returns Removes the gauges.
 */
function observeTelemetry(
  env: Environment,
  ports: { store: Store; clock: Clock; logger: Logger },
): () => void {
  if (isRuntimeTracingQueries(env)) {
    ports.logger.warn(
      "OTEL_DENO is on with Deno's own HTTP tracing, whose spans record each request's query as it came (a signed link's sig, the calendar feed's key) and each fetched feed's address: set OTEL_DENO_TRACING=false, and the service's own server spans, with the query's values redacted, stand for Deno's (README, Observability)",
    );
  }
  return observeOutbox(ports);
}

/**
 * The outbox's webhook lane for the endpoints of `STUDIO_WEBHOOK_URL`; its modules load only
 * where webhooks are configured.
 *
 * @param config The checked configuration.
 * @param ports The store (the endpoints' states), the clock and the logger.
 * @returns The lane, or `undefined` without webhooks.
 */
async function createWebhooks(
  config: Config,
  ports: { store: Store; clock: Clock; logger: Logger },
): Promise<WebhookLane | undefined> {
  if (!config.webhooks) return undefined;
  const lane = await import("../lib/webhooks/webhook_lane.ts");
  return lane.createWebhookLane({ endpoints: lane.toWebhookEndpoints(config.webhooks), ...ports });
}

/**
 * The line the service logs once it listens: `{"level":"info","message":"Listening","url",
 * "port","baseUrl","kvPath","rateLimitStore"}` (the entries print it, `deno serve`'s included).
 *
 * @param config The checked configuration.
 * @param address Where the server listens.
 * @returns The JSON line.
 */
export function buildListeningLine(
  config: Config,
  address: { hostname: string; port: number },
): string {
  const { hostname, port } = address;
  return JSON.stringify({
    level: "info",
    message: "Listening",
    url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/`,
    port,
    baseUrl: config.baseUrl,
    kvPath: config.kvPath ?? "(platform default)",
    rateLimitStore: config.rateLimitStore,
  });
}

/**
 * The line the service logs last, once it has stopped: `{"level":"info","message":"Stopped",
 * "port"}`.
 *
 * @param port The port it listened on.
 * @returns The JSON line.
 */
export function buildStoppedLine(port: number): string {
  return JSON.stringify({ level: "info", message: "Stopped", port });
}

/**
 * Starts the service: builds the application, serves it where `PORT` and `HOST` say, logs one
 * JSON line `{"message":"Listening","url",…,"port","baseUrl"}`, and on SIGINT or SIGTERM stops
 * serving, closes the application (which writes the request log's buffered lines), logs
 * `{"message":"Stopped"}` and exits 0. With `PORT=0` and no `STUDIO_BASE_URL` it listens
 * first and builds the application once the port is known, so the default base URL (and allowed
 * origin) name that port; requests that arrive meanwhile wait. A bad variable prints
 * `studio-website: Invalid …` and exits 1. The store opens on first use, after the service
 * listens (see `openStoreOnFirstUse`); one that cannot be opened exits 1 then.
 *
 * @param host The runtime's ways to open the store, serve, hear signals and exit.
 * @returns The running application, or `undefined` when the configuration was refused.
 */
export async function runApp(host: AppHost): Promise<App | undefined> {
  let app: App | undefined;
  let server: Listening;
  try {
    const config = readConfig(host.env, { onDenoDeploy: host.onDenoDeploy });
    const listening = { port: config.port, hostname: config.host };
    // The store may fail while createApp() still runs, before there is a log to flush.
    const runtime = openStoreOnFirstUse(host, () => app?.log.flush());
    if (config.port === 0 && config.baseUrlFollowsPort) {
      ({ app, server } = await listenThenCreate(host, runtime, listening));
    } else {
      app = await createConfiguredApp(config, host.env, runtime);
      server = await host.serve(app.handler, listening);
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${SERVICE_NAME}: ${error.message}`);
    host.exit(1);
    return undefined;
  }
  const { log } = app;
  const { port } = server;
  log.write(buildListeningLine(app.config, server));
  await log.flush();
  const running = app;
  let stopping = false;
  host.onSignal(async () => {
    if (stopping) return;
    stopping = true;
    // Every request answered so far has its line in the log's buffer: close() writes them. The
    // shutdown waits for open requests, so those still waiting for their body give up first.
    running.interrupt();
    await shutDownWithin(server, CONNECTION_TIMEOUTS.shutdownGraceSeconds * 1000);
    await running.close();
    // A server past its grace (or whose stop did not wait for every handler, as Bun's does not
    // for a request its client gave up) may still produce answers: "Stopped" is the log's last
    // line, and the request log withholds the answers that come after it, so that every request
    // answered has its line before it and the exit loses none.
    await log.end(buildStoppedLine(port));
    host.exit(0);
  });
  return app;
}

/**
 * Stops a server, waiting for its graceful shutdown no longer than the grace: a connection whose
 * request never ends (a sender that stopped mid-body, already answered) holds `Deno.serve`'s
 * shutdown until the client closes it, and leaving the process closes it.
 */
async function shutDownWithin(server: Listening, graceMilliseconds: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, graceMilliseconds));
  try {
    await Promise.race([server.shutdown(), grace]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The host's runtime with a store that opens on first use: the service listens before
 * it opens its store, which a health check or a page does not need; the outbox's
 * first pass, a second after start, or the first request that needs the store opens it. A store
 * that cannot be opened, after the retries for a file another process holds locked, stops the
 * service as before: `studio-website: The store could not be opened: …` and exit 1.
 *
 * @param host The host.
 * @param flushLog Writes the log's buffered lines, before the exit.
 * @returns The runtime to build the application with.
 */
function openStoreOnFirstUse(
  host: AppHost,
  flushLog: () => Promise<void> | undefined,
): AppRuntime {
  return {
    ...host,
    openStore: (path) =>
      Promise.resolve(createLazyStore(() => {
        const opening = retry(() => host.openStore(path), START_RETRY);
        opening.catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          console.error(`${SERVICE_NAME}: The store could not be opened: ${reason}`);
          // The lines of the requests answered so far first.
          void Promise.resolve(flushLog()).finally(() => host.exit(1));
        });
        return opening;
      })),
  };
}

/**
 * Listens on a port the system picks, then builds the application with
 * `STUDIO_BASE_URL=http://localhost:<that port>`. Requests that arrive before it is built wait for
 * it; if building fails they answer 503 and the server stops before the error is rethrown.
 */
async function listenThenCreate(
  host: AppHost,
  runtime: AppRuntime,
  options: ServeOptions,
): Promise<{ app: App; server: Listening }> {
  let ready: Handler | undefined;
  let settle: (handler: Handler) => void = () => {};
  const pending = new Promise<Handler>((resolve) => settle = resolve);
  const server = await host.serve(
    (request, info) => ready ? ready(request, info) : pending.then((use) => use(request, info)),
    options,
  );
  try {
    const env = { ...host.env, STUDIO_BASE_URL: `http://localhost:${server.port}` };
    const app = await createApp(env, runtime);
    settle(ready = app.handler);
    return { app, server };
  } catch (error) {
    settle(() =>
      Promise.resolve(new Response(null, { status: 503, headers: { "Retry-After": "5" } }))
    );
    await server.shutdown();
    throw error;
  }
}

/**
 * The handler's options that come from the configuration alone (the service's and an operator's
 * command's alike).
 *
 * @param config The checked configuration.
 * @returns The options, without the store, clock, logger and outbox the caller brings.
 */
export function toHandlerOptions(config: Config): HandlerOptions {
  return {
    baseUrl: config.baseUrl,
    confirmation: config.confirmation,
    bookingsPerAttendee: config.bookingsPerAttendee,
    reminderLeadMinutes: config.reminderLeadMinutes,
    allowedOrigins: config.allowedOrigins,
    // Read (or made) by the first link signed or checked, not before the service listens.
    secret: config.secret,
    mailFrom: config.mailFrom,
    inbox: config.inbox,
    team: config.team,
    trustProxy: config.trustProxy,
    rateLimits: config.rateLimits,
    deprecation: config.deprecation,
  };
}
