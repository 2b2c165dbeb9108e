/**
 * The composition root for Deno: reads the environment, opens Deno KV, builds the handler and
 * serves it with `Deno.serve`. Run it with `deno task start`.
 *
 * @module
 */
import { type Config, ConfigError, readConfig } from "./lib/config.ts";
import { readOrCreateSecret } from "./lib/secret.ts";
import { CONSOLE_LOGGER, createHandler, type Handler } from "./mod.ts";
import { createOutbox } from "./lib/outbox.ts";
import { createSmtpMailer } from "./lib/smtp_mailer.ts";
import { createIcsCalendar } from "./lib/busy_calendar.ts";
import { DEFAULT_SCHEDULE } from "./lib/schedule.ts";

/** A started application: the handler and how to release what it holds. */
export interface App {
  /** The checked configuration. */
  config: Config;
  /** The fetch handler. */
  handler: Handler;
  /** Stops background delivery and closes the mailer and the store. */
  close(): Promise<void>;
}

/**
 * Builds the application from environment variables: the checked configuration, the Deno KV
 * store (a local file by default, created on first start) and the handler.
 *
 * @param env The environment.
 * @throws {ConfigError} When a variable is invalid.
 */
export async function createApp(env: Record<string, string | undefined>): Promise<App> {
  const onDenoDeploy = env.DENO_DEPLOYMENT_ID !== undefined;
  const config = readConfig(env, { onDenoDeploy });
  if (config.kvPath && !config.kvPath.includes("://") && config.kvPath !== ":memory:") {
    const folder = config.kvPath.replace(/[\\/][^\\/]*$/, "");
    if (folder && folder !== config.kvPath) await Deno.mkdir(folder, { recursive: true });
  }
  const store = await Deno.openKv(config.kvPath);
  const clock = { now: () => Temporal.Now.instant() };
  const logger = CONSOLE_LOGGER;
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined;
  const outbox = createOutbox({ store, mailer, clock, logger });
  outbox.start();
  const busyCalendar = config.busyCalendars.length
    ? createIcsCalendar({
      urls: config.busyCalendars,
      defaultTimeZone: DEFAULT_SCHEDULE.timeZone,
      clock,
      logger,
    })
    : undefined;
  const handler = createHandler({
    baseUrl: config.baseUrl,
    busyCalendar,
    store,
    clock,
    logger,
    outbox,
    confirmation: config.confirmation,
    allowedOrigins: config.allowedOrigins,
    secret: await readOrCreateSecret(store, config.secret),
    mailFrom: config.mailFrom,
    inbox: config.inbox,
    trustProxy: config.trustProxy,
    rateLimits: config.rateLimits,
    deprecation: config.deprecation,
  });
  return {
    config,
    handler,
    async close() {
      await outbox.stop();
      mailer?.close();
      store.close();
    },
  };
}

if (import.meta.main) {
  let app: App;
  try {
    app = await createApp(Deno.env.toObject());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`studio-website: ${error.message}`);
    Deno.exit(1);
  }
  const { config } = app;
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ port, hostname }) => {
      console.log(JSON.stringify({
        level: "info",
        message: "Listening",
        url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/`,
        port,
        baseUrl: config.baseUrl,
        kvPath: config.kvPath ?? "(platform default)",
      }));
    },
  }, app.handler);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await server.shutdown();
      await app.close();
      Deno.exit(0);
    });
  }
}
