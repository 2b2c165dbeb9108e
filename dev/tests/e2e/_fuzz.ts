/**
 * Random and malformed requests for every endpoint (fast-check arbitraries), and the checks every
 * answer must pass: no 5xx but a documented 503, an ErrorResponse with the API's headers for every
 * failure under `/api/`. Used by tests/e2e/fuzz_test.ts (a fixed seed in CI) and scripts/fuzz.ts
 * (a large run on demand). Internal to tests/.
 *
 * @module
 */
import fc from "fast-check";
import { METHODS as NODE_METHODS } from "node:http";
import { connect } from "node:net";
import { RUNTIME } from "../_kv.ts";
import type { OpenApiContract } from "./_contract.ts";

/** A request sent through `fetch`. */
export interface FetchCase {
  kind: "fetch";
  method: string;
  /** Path and query, possibly with percent-encoded bytes that are not UTF-8. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

/** Bytes written to a socket as they are: invalid UTF-8 in the request line, odd methods. */
export interface RawCase {
  kind: "raw";
  bytes: Uint8Array;
}

/** One fuzz case. */
export type FuzzCase = FetchCase | RawCase;

const encoder = new TextEncoder();

const API_PATHS = [
  "/api",
  "/api/v1",
  "/api/health",
  "/api/v1/health",
  "/api/v1/contact",
  "/api/fuel-contact",
  "/api/v1/booking",
  "/api/v1/booking/slots",
];
const SITE_PATHS = [
  "/",
  "/en",
  "/contacto",
  "/en/contact",
  "/marcar-conversa",
  "/en/book",
  "/servicos",
  "/md/",
  "/md/en/services",
  "/md/servicos.md",
  "/llms.txt",
  "/llms-full.txt",
  "/sitemap.xml",
  "/robots.txt",
  "/openapi.json",
  "/.well-known/api-catalog",
  "/booking/confirm/01J000000000000000000000000/abc",
  "/booking/reschedule?id=01J00000000000000000000000&seq=0&sig=abc",
  "/booking/reschedule?id=01J00000000000000000000000&seq=99999999999999999999&sig=",
  "/booking/reschedule?seq=-1&month=2026-13",
];
const FIELDS = [
  "Name",
  "Email",
  "Message",
  "Category",
  "utm_source",
  "gclid",
  "start",
  "name",
  "email",
  "company",
  "topic",
  "locale",
  "website",
  "__proto__",
  "constructor",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=XyZ",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "text/plain",
  "application/xml",
  "application/octet-stream",
  "text/csv; charset=utf-16",
  "",
  "application/json, text/plain",
  "*/*",
  "application/JSON",
];
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "FOO"];

/** Text that stresses validators: empty, huge, control characters, lone surrogates, HTML. */
const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\r\nBcc: x@example.com",
    "\ud800",
    "\udfff\ud800",
    "<script>alert(1)</script>",
    "a@b",
    "ana@example.pt",
    "2026-12-02T10:00:00Z",
    "2026-12-02T10:00:00+99:00",
    "+275760-09-13T00:00:00Z",
    "pt",
    "en",
    "../../etc/passwd",
    "%00",
    "NaN",
    "-0",
    "1e309",
  ),
  fc.tuple(fc.constantFrom("x", "é", "😀", "\u0000", " "), fc.constantFrom(201, 321, 5001, 70_000))
    .map(([unit, count]) => unit.repeat(count)),
);

/** Any JSON value, including huge, deep and odd ones. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(oddText, { maxLength: 3 }),
  fc.dictionary(oddText, oddText, { maxKeys: 3 }),
);

/** An object with the API's field names (and others) mapped to odd values. */
const fieldObject = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), oddText), jsonValue, {
  maxKeys: 9,
});

/** Field pairs for forms, with repeated names. */
const fieldPairs = fc.array(fc.tuple(fc.constantFrom(...FIELDS), oddText), { maxLength: 12 });

function toMultipart(pairs: Array<[string, string]>, boundary: string): Uint8Array<ArrayBuffer> {
  const parts = pairs.map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  );
  return encoder.encode(`${parts.join("")}--${boundary}--\r\n`);
}

/** Bodies of every kind: JSON of any shape, forms with repeated fields, bytes that are not UTF-8. */
const body: fc.Arbitrary<Uint8Array<ArrayBuffer> | undefined> = fc.oneof(
  fc.constant(undefined),
  fieldObject.map((value) => encoder.encode(JSON.stringify(value))),
  jsonValue.map((value) => encoder.encode(JSON.stringify(value) ?? "")),
  fc.constantFrom(1_000, 10_000, 100_000).map((depth) =>
    encoder.encode("[".repeat(depth) + "]".repeat(depth))
  ),
  fc.constantFrom(1_000, 10_000).map((depth) =>
    encoder.encode('{"a":'.repeat(depth) + "1" + "}".repeat(depth))
  ),
  fieldPairs.map((pairs) => encoder.encode(new URLSearchParams(pairs).toString())),
  fieldPairs.map((pairs) => toMultipart(pairs, "XyZ")),
  fc.uint8Array({ maxLength: 300 }),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) =>
    Uint8Array.from([...encoder.encode('{"Name":"'), ...bytes.map((b) => b | 0x80), 34, 125])
  ),
  fc.constantFrom(33_000, 70_000, 1_100_000).map((size) => new Uint8Array(size).fill(0x61)),
  fc.constantFrom('{"a":1,"a":2}', "{", '"\\ud800"', "\ufeff{}", "null", "[]", "1", "%", "a=%ZZ")
    .map((text) => encoder.encode(text)),
);

/** A path and query: known ones, random ones under /api/, /md/ and the site, odd encodings. */
const target: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...API_PATHS, ...SITE_PATHS),
  fc.tuple(fc.constantFrom("/api/", "/api/v1/", "/md/", "/", "/en/"), fc.webSegment())
    .map(([prefix, segment]) => prefix + segment),
  fc.tuple(
    fc.constantFrom("/api/v1/", "/md/", "/"),
    fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 12 }),
  ).map(([prefix, bytes]) =>
    prefix + bytes.map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("")
  ),
  fc.constantFrom(
    "/api/v1/booking/slots?month=",
    "/api/v1/booking/slots?month=2026-13",
    "/api/v1/booking/slots?month=0000-01",
    "/api/v1/booking/slots?month=%FF",
    "/api/v1/booking/slots?month=2026-01&month=2026-02",
    "/api/v1/booking/slots?month[]=1",
    "/md/..%2f..%2fetc%2fpasswd",
    "/md/%2e%2e/%2e%2e/README.md",
    "/api//v1//health",
    "/API/V1/HEALTH",
    "/api/v1/health/",
    "/api/v1/health?" + "a=1&".repeat(2000),
    "/md/" + "a/".repeat(500),
  ),
  fc.tuple(fc.constantFrom(...API_PATHS), fc.webQueryParameters()).map(([path, query]) =>
    `${path}?${query}`
  ),
);

/** Header values, from plausible to absurd. */
const headers: fc.Arbitrary<Record<string, string>> = fc.record({
  "Content-Type": fc.constantFrom(...CONTENT_TYPES),
  Accept: fc.constantFrom(
    "*/*",
    "text/markdown",
    "text/markdown;q=0.1, text/html",
    "application/json",
    "text/markdown;q=abc",
    ";;;,,,",
    "x".repeat(4000),
  ),
  "Accept-Language": fc.constantFrom("pt", "en", "*", "zz-ZZ;q=2", ""),
  Origin: fc.constantFrom("null", "https://evil.example", "https://studio.example", "%%%"),
  "X-Forwarded-For": fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.constantFrom("", "garbage", "1.2.3.4, 5.6.7.8", "999.1.1.1", "::ffff:1.2.3.4"),
  ),
  "Idempotency-Key": fc.string({ maxLength: 300 }).filter((key) => /^[\x20-\x7e]*$/.test(key)),
  "If-None-Match": fc.constantFrom("*", '"abc"', 'W/"x"', ""),
  Cookie: fc.constantFrom("first_touch=%7B%22utm_source%22%3A1%7D", "first_touch=%%%", "a=b"),
}, { requiredKeys: [] });

/** A request line with bytes that are not UTF-8, odd methods, odd header bytes. */
const rawCase: fc.Arbitrary<RawCase> = fc.record({
  method: fc.constantFrom("GET", "POST", "BREW", "get", "PRI", "M-SEARCH"),
  prefix: fc.constantFrom("/api/v1/", "/md/", "/", "/api/fuel-contact"),
  pathBytes: fc.uint8Array({ maxLength: 20 }).map((bytes) =>
    bytes.map((b) => b <= 0x20 || b === 0x7f ? 0x80 | b : b)
  ),
  headerBytes: fc.uint8Array({ maxLength: 20 }).map((bytes) =>
    bytes.map((b) => b < 0x20 || b === 0x7f ? 0x80 | b : b)
  ),
  body: fc.uint8Array({ maxLength: 64 }),
}).map(({ method, prefix, pathBytes, headerBytes, body }) => {
  const head = encoder.encode(`${method} ${prefix}`);
  const middle = encoder.encode(" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odd: ");
  const tail = encoder.encode(
    `\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      "Connection: close\r\n\r\n",
  );
  return {
    kind: "raw" as const,
    bytes: Uint8Array.from([...head, ...pathBytes, ...middle, ...headerBytes, ...tail, ...body]),
  };
});

/** Every kind of case: mostly fetch requests, some raw bytes. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant("fetch" as const),
      // Mostly POST to the write operations, where bodies matter; every method and path besides.
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant("POST") },
        { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
      ),
      target: fc.oneof(
        {
          weight: 2,
          arbitrary: fc.constantFrom("/api/v1/contact", "/api/fuel-contact", "/api/v1/booking"),
        },
        { weight: 1, arbitrary: fc.constantFrom("/contacto", "/en/contact") },
        { weight: 3, arbitrary: target },
      ),
      headers,
      body,
    }),
  },
  { weight: 1, arbitrary: rawCase },
);

/** A short, printable description of a case, for failure messages. */
export function describeCase(value: FuzzCase): string {
  if (value.kind === "raw") {
    return `raw ${JSON.stringify(new TextDecoder().decode(value.bytes.slice(0, 200)))}`;
  }
  const size = value.body?.length ?? 0;
  const preview = value.body ? new TextDecoder().decode(value.body.slice(0, 120)) : "";
  return `${value.method} ${value.target.slice(0, 200)} ${JSON.stringify(value.headers)} ` +
    `body ${size} bytes ${JSON.stringify(preview)}`;
}

/** What an answer broke: empty when it passed. */
export type Problems = string[];

/** Operations documented to answer 503 (a calendar or provider down, an uncertain outcome). */
const MAY_ANSWER_503 = ["/api/v1/booking", "/api/v1/booking/slots"];

/**
 * Sends one case to `origin` and checks the answer.
 *
 * @param origin `http://127.0.0.1:<port>`
 * @param contract The compiled OpenAPI document (for the ErrorResponse schema and the headers).
 * @param value The case.
 * @param onStatus Told each answer's status (0 when a raw request got no status line).
 */
export async function runCase(
  origin: string,
  contract: OpenApiContract,
  value: FuzzCase,
  onStatus?: (status: number) => void,
): Promise<Problems> {
  if (value.kind === "raw") return await runRawCase(origin, value, onStatus);
  const init: RequestInit = {
    method: value.method,
    headers: value.headers,
    body: value.method === "GET" || value.method === "HEAD" ? undefined : value.body,
  };
  let request: Request;
  try {
    request = new Request(`${origin}${value.target}`, init);
  } catch {
    return []; // A request the client itself refuses to build never reaches the server.
  }
  const path = new URL(request.url).pathname;
  let response: Response;
  try {
    response = await fetch(request);
  } catch {
    // A server may answer a request without reading a large body it has no use for (a 404 or a
    // 405) and close the connection; Node's fetch (undici) then reports "other side closed"
    // instead of the answer (curl and Deno's fetch show it), and may fail the next request on
    // that closed connection too. That is the client's view, not a failure of the service: the
    // same request again, on a fresh connection, must be answered.
    try {
      response = await fetch(new Request(`${origin}${value.target}`, init));
    } catch (error) {
      // Bun's fetch refuses a body with a method it does not know (e.g. FOO) before sending.
      if (String(error).includes("cannot have body")) return [];
      const health = await fetch(`${origin}/api/v1/health`);
      await health.body?.cancel();
      if ((value.body?.length ?? 0) > 65_536 && health.status === 200) return [];
      const cause = error instanceof Error ? `${error.message} ${String(error.cause)}` : error;
      return [`no answer: ${cause}`];
    }
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  onStatus?.(response.status);
  const problems: Problems = [];
  if (response.status >= 500) {
    const documented = response.status === 503 && MAY_ANSWER_503.includes(path);
    if (!documented) problems.push(`status ${response.status}`);
  }
  // Node's HTTP parser (llhttp) answers a method it does not know (e.g. FOO) with a bare 400
  // before the service sees the request; Deno and Bun pass it on. Only the status counts there.
  const parsedByService = RUNTIME !== "node" || NODE_METHODS.includes(value.method);
  if (parsedByService && (path === "/api" || path.startsWith("/api/"))) {
    problems.push(...contract.checkHeaders(response, contract.requiredHeaders));
    if (response.status >= 400 && value.method !== "HEAD") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        problems.push(`not JSON: ${new TextDecoder().decode(bytes.slice(0, 200))}`);
      }
      if (parsed !== undefined && !contract.validateError(parsed)) {
        problems.push(`not an ErrorResponse: ${JSON.stringify(parsed).slice(0, 300)}`);
      }
    }
  }
  return problems;
}

/** Writes raw bytes and reads the status line; a 5xx is a problem, a refused request is not. */
async function runRawCase(
  origin: string,
  value: RawCase,
  onStatus?: (status: number) => void,
): Promise<Problems> {
  const { hostname, port } = new URL(origin);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error("no answer to a raw request within 10 s"));
    });
    socket.on("data", (chunk) => text += chunk.toString("latin1"));
    socket.on("error", () => resolve(text)); // A reset is how some servers refuse bad bytes.
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
    socket.write(value.bytes);
  });
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
  onStatus?.(status);
  return status >= 500 ? [`status ${status}: ${answer.slice(0, 300)}`] : [];
}
