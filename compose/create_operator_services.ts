/**
 * The services an operator's command acts with (the CLI's export and erasure of personal data),
 * composed as the service composes its own: the same configuration, the same options.
 *
 * @module
 */
import { type Environment, readConfig } from "../lib/config.ts";
import { SYSTEM_CLOCK } from "../lib/resolve_services.ts";
import type { Services } from "../lib/services.ts";
import type { Store } from "../lib/store/store.ts";
import { createOutbox } from "../lib/mail/outbox.ts";
import { createSmtpMailer } from "../adapters/smtp_mailer.ts";
import { createWebhookLane } from "../lib/webhooks/webhook_lane.ts";
import { toWebhookEndpoints } from "../lib/webhooks/webhook_store.ts";
import { createJsonLogger, createLogTime } from "../lib/create_json_logger.ts";
import { composeServices } from "./compose_handler.ts";
import { toHandlerOptions } from "./create_app.ts";

/** The services of an operator's command, and how to release what they hold. */
export interface OperatorServices {
  /** The services, over the command's store, with the service's settings. */
  services: Services;
  /** Stops the outbox (mail being sent is finished) and closes the mailer; not the store. */
  close(): Promise<void>;
}

/**
 * The services of an operator's command that acts as the service would (the CLI's export and
 * erasure of personal data): the same environment variables, over a store the command opened,
 * with the SMTP mailer when `STUDIO_SMTP_URL` is set, so that an erasure delivers its
 * cancellations itself (a running service's outbox on the same store delivers them otherwise),
 * and queues their `booking.cancelled` webhook events when `STUDIO_WEBHOOK_URL` is set.
 * Its log lines go to standard error, leaving standard output to the command's answer.
 *
 * @param env The environment, e.g. `Deno.env.toObject()` or `process.env`.
 * @param store The opened store of `STUDIO_KV_PATH`.
 * @returns The services and their `close`.
 * @throws {ConfigError} When a variable is invalid.
 */
export function createOperatorServices(env: Environment, store: Store): OperatorServices {
  const config = readConfig(env);
  const clock = SYSTEM_CLOCK;
  const logger = createJsonLogger({
    write: (line) => console.error(line),
    writeError: (line) => console.error(line),
    time: createLogTime(),
  });
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined;
  const webhooks = config.webhooks
    ? createWebhookLane({ endpoints: toWebhookEndpoints(config.webhooks), store, clock, logger })
    : undefined;
  const outbox = createOutbox({ store, mailer, clock, logger, webhooks });
  const services = composeServices({ ...toHandlerOptions(config), store, clock, logger, outbox });
  return {
    services,
    async close() {
      await outbox.stop();
      mailer?.close();
    },
  };
}
