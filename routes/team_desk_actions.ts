/**
 * The desk's actions that other modules provide (see `TeamDeskActions`): personal data on request
 * (`lib/privacy/`) and the team's calendar feed (`lib/team/calendar_feed.ts`), over the same
 * functions as the operator's CLI. Their modules are imported by the desk's first request.
 *
 * @module
 */
import type { SiteServices } from "../lib/services.ts";
import type { TeamDeskActions } from "../lib/team/desk_actions.ts";
import { loadOnce } from "../lib/load_once.ts";

/**
 * The file name of an export: the address's characters that are safe in a file name, and the day,
 * e.g. `personal-data-ana-example.pt-2026-11-26.json`.
 */
function toExportFilename(address: string, exportedAt: string): string {
  const safe = address.toLowerCase().replace(/[^a-z0-9.-]+/g, "-");
  return `personal-data-${safe}-${exportedAt.slice(0, 10)}.json`;
}

/**
 * Makes the desk's actions; each imports its module with its first use.
 *
 * @param services The site's services, which the actions close over.
 * @returns Export and erasure of an address's data, and the calendar feed's address and renewal.
 */
export function createTeamDeskActions(services: SiteServices): TeamDeskActions {
  const privacy = loadOnce(() => import("../lib/privacy/personal_data.ts"));
  const feed = loadOnce(() => import("../lib/team/calendar_feed.ts"));
  return {
    async exportPersonalData(email) {
      const document = await (await privacy()).exportPersonalData(services, email);
      return {
        filename: toExportFilename(document.address, document.exportedAt),
        json: JSON.stringify(document, null, 2),
      };
    },
    async erasePersonalData(email, { actor, discardUndelivered, withCommit }) {
      const record = await (await privacy()).erasePersonalData(services, email, {
        actor,
        discardUndelivered,
        withCommit: (operation, written) =>
          withCommit?.(operation, { counts: { ...written.counts } }),
      });
      return { counts: { ...record.counts } };
    },
    async renewCalendarFeed({ withCommit }) {
      const { buildFeedUrl, renewFeedSecret } = await feed();
      const secret = await renewFeedSecret(services, { withCommit });
      return { url: buildFeedUrl(services.baseUrl, secret) };
    },
    async readCalendarFeedUrl() {
      const { buildFeedUrl, readOrCreateFeedSecret } = await feed();
      return buildFeedUrl(services.baseUrl, await readOrCreateFeedSecret(services));
    },
  };
}

/**
 * Loads the desk's actions, with the desk's first request.
 *
 * @param services The site's services, which the actions close over.
 * @returns The actions (see {@linkcode createTeamDeskActions}).
 */
export function loadTeamDeskActions(services: SiteServices): Promise<TeamDeskActions> {
  return Promise.resolve(createTeamDeskActions(services));
}
