/**
 * Where the team's calendar feed is served, apart from the feed's module (and its calendar
 * library) so that the route table names it without loading them.
 *
 * @module
 */

/**
 * The feed's path; its secret travels in the `key` query parameter, which the request log leaves
 * out (it logs paths only).
 */
export const CALENDAR_FEED_PATH = "/team/calendar.ics";
