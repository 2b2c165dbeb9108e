const t0 = performance.now();
const { createHandler } = await import("/work/main/create_handler.ts");
const t1 = performance.now();
const handler = createHandler({ baseUrl: "http://localhost:8000" });
const t2 = performance.now();
const path = Deno.args[0] ?? "/en";
const r = await handler(
  new Request("http://localhost:8000" + path, {
    headers: {
      Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "Accept-Encoding": Deno.env.get("AE") ?? "gzip, deflate, br, zstd",
    },
  }),
);
await r.arrayBuffer();
const t3 = performance.now();
const r2 = await handler(new Request("http://localhost:8000/api/v1/health"));
await r2.arrayBuffer();
const t4 = performance.now();
console.log(
  `import ${(t1 - t0).toFixed(1)} create ${(t2 - t1).toFixed(1)} first ${path} ${
    (t3 - t2).toFixed(1)
  } (${r.status} ${r.headers.get("content-encoding")}) health ${(t4 - t3).toFixed(1)}`,
);
