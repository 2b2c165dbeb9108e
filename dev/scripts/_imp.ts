const t0 = performance.now();
await import(Deno.args[0]);
console.log((performance.now() - t0).toFixed(1));
