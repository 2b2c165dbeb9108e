/**
 * Where the desk gets the actions that other modules provide (see `TeamDeskActions`): personal
 * data on request, and the team's calendar feed. Each member given here shows its section on the
 * desk and serves its form; none is given yet.
 *
 * @module
 */
import type { SiteServices } from "../lib/services.ts";
import type { TeamDeskActions } from "../lib/team/desk_actions.ts";

/**
 * Loads the desk's actions, with the desk's first request.
 *
 * @param _services The site's services, which the actions close over.
 * @returns The actions available.
 */
export function loadTeamDeskActions(_services: SiteServices): Promise<TeamDeskActions> {
  return Promise.resolve({});
}
