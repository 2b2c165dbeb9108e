const t0 = performance.now();
const s = (await import("../../content/schedule.json", { with: { type: "json" } })).default;
const t1 = performance.now();
const m = await import("../../lib/availability/read_schedule.ts");
const t2 = performance.now();
m.readSchedule(s);
const t3 = performance.now();
const dtf = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Lisbon" });
const t4 = performance.now();
Temporal.Now.instant().toZonedDateTimeISO("Europe/Lisbon");
const t5 = performance.now();
console.log(
  `json ${(t1 - t0).toFixed(1)} module ${(t2 - t1).toFixed(1)} read ${(t3 - t2).toFixed(1)} dtf ${
    (t4 - t3).toFixed(1)
  } temporalzone ${(t5 - t4).toFixed(1)}`,
);
