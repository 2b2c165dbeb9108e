/**
 * The sample fixture studio with one webhook endpoint: the handler and the services over one
 * memory store, a memory mailer and an outbox whose webhook lane posts to a real receiver, at the
 * real time (standardwebhooks refuses a timestamp more than 5 minutes off). Internal to tests/.
 *
 * @module
 */
import type { HandlerOptions } from "../../../compose/create_handler.ts";
import { createMemoryMailer } from "../../../testing.ts";
import { SAMPLE_SCHEDULE } from "../../_fixture_studio.ts";
import { createStudioApp, listSlots, type StudioApp } from "../../_studio_app.ts";
import { createWebhookOutbox, type TestReceiver, type WebhookOutboxOptions } from "./_receiver.ts";

/** A studio (for `_studio_app.ts`'s `listSlots`, `sendInquiry`, `book`) with a webhook endpoint. */
export interface WebhookStudio extends StudioApp {
  /** The endpoint's receiver. */
  receiver: TestReceiver;
  /** The endpoint's id, as the desk names it. */
  endpointId: string;
}

/**
 * Creates the sample studio whose outbox delivers mail to a memory mailer and every webhook
 * event to `endpoint.receiver`.
 *
 * @param endpoint The receiver and its secret (see `createWebhookOutbox`).
 * @param options The handler's other options (confirmation, mail addresses, team).
 * @returns The studio.
 */
export function createWebhookStudio(
  endpoint: Pick<WebhookOutboxOptions, "receiver" | "secret">,
  options: Omit<HandlerOptions, "store" | "clock" | "logger" | "outbox"> = {},
): WebhookStudio {
  const mailer = createMemoryMailer();
  const { receiver, store, clock, logger, outbox } = createWebhookOutbox({ ...endpoint, mailer });
  const studio = createStudioApp(store, mailer, {
    secret: "webhook-tests-link-secret-0123456789abcdef",
    ...options,
    clock,
    logger,
    outbox,
  });
  return { ...studio, receiver, endpointId: outbox.webhookEndpoints()[0].id };
}

/**
 * The starts the studio lists next month (in the sample studio's zone), through the API: with the
 * clock at the real time, this month may have none left.
 *
 * @param studio The studio.
 * @returns The starts, ISO 8601 with an offset, in order.
 */
export function listNextMonthSlots(studio: StudioApp): Promise<string[]> {
  const month = Temporal.Now.plainDateISO(SAMPLE_SCHEDULE.timeZone).add({ months: 1 })
    .toPlainYearMonth().toString();
  return listSlots(studio, month);
}
