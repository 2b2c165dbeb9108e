const { resolveServices } = await import("../../lib/resolve_services.ts");
const { buildRouteTable } = await import("../../routes/mod.ts");
const { createPipeline } = await import("../../lib/http/create_pipeline.ts");
const { SITE_INDEX } = await import("../../build/site_index.generated.ts");
const { DEFAULT_SCHEDULE } = await import("../../build/schedule.generated.ts");
const { PUBLIC_HOLIDAYS } = await import("../../build/public_holidays.generated.ts");
for (let round = 0; round < 3; round++) {
  const t0 = performance.now();
  const services = resolveServices({ baseUrl: "http://localhost:8000" }, {
    content: { index: SITE_INDEX, load: () => Promise.reject(new Error()) },
    schedule: DEFAULT_SCHEDULE,
    holidays: PUBLIC_HOLIDAYS,
    loadApiReference: () => Promise.reject(new Error()),
  });
  const t1 = performance.now();
  const { table, fallback } = buildRouteTable(services);
  const t2 = performance.now();
  createPipeline({ ...services, table, fallback });
  const t3 = performance.now();
  console.log(
    `resolve ${(t1 - t0).toFixed(2)} table ${(t2 - t1).toFixed(2)} pipeline ${
      (t3 - t2).toFixed(2)
    } routes ${table.length}`,
  );
}
