const t0 = performance.now();
for (const spec of Deno.args) {
  const t = performance.now();
  await import(spec);
  console.log(spec.padEnd(50), (performance.now() - t).toFixed(1));
}
console.log("total", (performance.now() - t0).toFixed(1));
