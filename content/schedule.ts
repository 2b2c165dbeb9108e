/**
 * The studio's booking schedule: `schedule.json` beside this module, checked once (see
 * `ScheduleSettings` in lib/availability/schedule.ts). The default of `createHandler`'s
 * `schedule` option and of the service.
 *
 * @module
 */
import schedule from "./schedule.json" with { type: "json" };
import type { ScheduleSettings } from "../lib/availability/schedule.ts";
import { readSchedule } from "../lib/availability/read_schedule.ts";

/** The schedule of `content/schedule.json`. */
export const DEFAULT_SCHEDULE: ScheduleSettings = readSchedule(schedule);
