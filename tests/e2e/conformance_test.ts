import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { type RunningServer, startServer } from "./_server.ts";
import { compileContract, type ContractOperation, type OpenApiContract } from "./_contract.ts";
import { startSmtpServer } from "../_smtp.ts";
import { buildCalendar, startIcsFeedServer } from "../_ics_feed.ts";
import { buildBookingBody } from "../_booking.ts";
import { nextMonth } from "./_studio.ts";

const BASE_URL = "https://studio.example";

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
async function findDeadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 9;
}

/**
 * Waits, when a rate-limit window (aligned to whole minutes) ends within 3 s, until it has ended:
 * a pair of requests meant to exhaust a quota of one and meet the 429 must fall in one window.
 */
async function awaitWholeWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Records which documented statuses each operation was driven through. */
class Coverage {
  readonly seen = new Map<string, Set<string>>();
  add(operation: ContractOperation, status: number): void {
    const statuses = this.seen.get(operation.operationId) ?? new Set<string>();
    statuses.add(String(status));
    this.seen.set(operation.operationId, statuses);
  }
}

/**
 * Sends a request for `operation` (whose path is the document's path, on `origin`) and asserts the
 * answer conforms to the document; returns the status and the parsed body.
 */
async function drive(
  contract: OpenApiContract,
  coverage: Coverage,
  origin: string,
  operation: ContractOperation,
  init: RequestInit & { query?: string; expect: number },
): Promise<unknown> {
  // Each operation is its own client (the quota servers trust X-Forwarded-For), so that one
  // operation's requests exhaust only its own quota.
  const client = `10.8.${contract.operations.indexOf(operation)}.1`;
  const response = await fetch(`${origin}${operation.path}${init.query ?? ""}`, {
    ...init,
    headers: { ...init.headers as Record<string, string>, "X-Forwarded-For": client },
    method: operation.method,
  });
  const text = await response.text();
  assert.equal(response.status, init.expect, `${operation.operationId}: ${text}`);
  assert.deepEqual(contract.check(operation, response, text), [], operation.operationId);
  coverage.add(operation, response.status);
  return JSON.parse(text);
}

function findOperation(contract: OpenApiContract, operationId: string): ContractOperation {
  const operation = contract.operations.find((candidate) => candidate.operationId === operationId);
  assert.ok(operation, `${operationId} is in the document`);
  return operation;
}

test("every operation of /openapi.json answers every documented status it can reach as the document declares", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-conformance-"));
  const smtp = await startSmtpServer();
  const feed = await startIcsFeedServer(buildCalendar());
  const deadFeed = `http://127.0.0.1:${await findDeadPort()}/busy.ics`;
  const common = { STUDIO_BASE_URL: BASE_URL, STUDIO_SMTP_URL: smtp.url };
  const servers: RunningServer[] = [];
  try {
    const [main, strict, dead] = await Promise.all([
      startServer({
        ...common,
        STUDIO_KV_PATH: join(folder, "main.kv"),
        STUDIO_BUSY_CALENDARS: feed.url,
        STUDIO_RATE_LIMIT_WRITE: "1000",
        STUDIO_RATE_LIMIT_BOOKING: "1000",
      }),
      // Quotas of one request per policy, to reach 429 on every operation.
      startServer({
        ...common,
        STUDIO_KV_PATH: join(folder, "strict.kv"),
        STUDIO_TRUST_PROXY: "x-forwarded-for",
        STUDIO_RATE_LIMIT_READ: "1",
        STUDIO_RATE_LIMIT_WRITE: "1",
        STUDIO_RATE_LIMIT_BOOKING: "1",
      }),
      // A busy calendar that never answers: listings and bookings answer 503 at once.
      startServer({
        ...common,
        STUDIO_KV_PATH: join(folder, "dead.kv"),
        STUDIO_BUSY_CALENDARS: deadFeed,
      }),
    ]);
    servers.push(main, strict, dead);

    const documentResponse = await fetch(`${main.origin}/openapi.json`);
    assert.equal(documentResponse.status, 200);
    const contract = compileContract(await documentResponse.json());
    const coverage = new Coverage();
    const month = nextMonth();
    const json = { "Content-Type": "application/json" };

    // Reads: the index, health and their aliases.
    for (const id of ["getApiIndex", "getApiIndexViaAlias", "getHealth", "getHealthViaAlias"]) {
      const operation = findOperation(contract, id);
      await drive(contract, coverage, main.origin, operation, { expect: 200 });
      await awaitWholeWindow();
      await drive(contract, coverage, strict.origin, operation, { expect: 200 });
      await drive(contract, coverage, strict.origin, operation, { expect: 429 });
    }

    // Contact and its alias, in each content type; 400 for each kind of bad body; 403, 429.
    for (const id of ["createContactInquiry", "createContactInquiryViaAlias"]) {
      const operation = findOperation(contract, id);
      const fields = { Name: "Rita Lopes", Email: "rita@example.pt", Message: `Via ${id}` };
      await drive(contract, coverage, main.origin, operation, {
        expect: 200,
        headers: json,
        body: JSON.stringify(fields),
      });
      await drive(contract, coverage, main.origin, operation, {
        expect: 200,
        body: new URLSearchParams(fields),
      });
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      await drive(contract, coverage, main.origin, operation, { expect: 200, body: form });
      for (
        const [headers, body] of [
          [json, "{not json"],
          [json, JSON.stringify({ ...fields, Email: "not an address" })],
          [json, JSON.stringify({ Name: "Rita" })],
          [{ "Content-Type": "text/plain" }, "hello"],
          [json, JSON.stringify({ ...fields, Message: "x".repeat(70_000) })],
        ] as const
      ) {
        await drive(contract, coverage, main.origin, operation, { expect: 400, headers, body });
      }
      await drive(contract, coverage, main.origin, operation, {
        expect: 403,
        headers: { ...json, Origin: "https://evil.example" },
        body: JSON.stringify(fields),
      });
      await awaitWholeWindow();
      await drive(contract, coverage, strict.origin, operation, {
        expect: 200,
        headers: json,
        body: JSON.stringify(fields),
      });
      await drive(contract, coverage, strict.origin, operation, {
        expect: 429,
        headers: json,
        body: JSON.stringify(fields),
      });
    }

    // Slots: 200, 400 for each kind of bad month, 429, 503.
    const slots = findOperation(contract, "listBookingSlots");
    const listing = await drive(contract, coverage, main.origin, slots, {
      expect: 200,
      query: `?month=${month}`,
    }) as { slots: Record<string, Array<{ start: string }>> };
    for (const query of ["", "?month=2020-01", "?month=2026-13", "?month=x", "?month=9999-01"]) {
      await drive(contract, coverage, main.origin, slots, { expect: 400, query });
    }
    await awaitWholeWindow();
    await drive(contract, coverage, strict.origin, slots, {
      expect: 200,
      query: `?month=${month}`,
    });
    await drive(contract, coverage, strict.origin, slots, {
      expect: 429,
      query: `?month=${month}`,
    });
    await drive(contract, coverage, dead.origin, slots, { expect: 503, query: `?month=${month}` });

    // Booking: 201, 409 (the same slot again), 400, 403, 413, 429, 503.
    const booking = findOperation(contract, "createBooking");
    const starts = Object.values(listing.slots).flat().map((slot) => slot.start);
    assert.ok(starts.length > 2, `${month} has slots`);
    const [first, second] = starts;
    const created = await drive(contract, coverage, main.origin, booking, {
      expect: 201,
      headers: { ...json, Origin: BASE_URL },
      body: JSON.stringify(buildBookingBody(first)),
    }) as { start: string };
    assert.equal(Date.parse(created.start), Date.parse(first));
    await drive(contract, coverage, main.origin, booking, {
      expect: 409,
      headers: json,
      body: JSON.stringify(buildBookingBody(first, { email: "other@example.pt" })),
    });
    for (
      const body of [
        "[]",
        "{",
        JSON.stringify(buildBookingBody(second, { locale: "fr" })),
        JSON.stringify(buildBookingBody(second, { website: "spam" })),
        JSON.stringify(buildBookingBody("yesterday")),
      ]
    ) {
      await drive(contract, coverage, main.origin, booking, { expect: 400, headers: json, body });
    }
    await drive(contract, coverage, main.origin, booking, {
      expect: 403,
      headers: { ...json, Origin: "https://evil.example" },
      body: JSON.stringify(buildBookingBody(second)),
    });
    await drive(contract, coverage, main.origin, booking, {
      expect: 413,
      headers: json,
      body: JSON.stringify(buildBookingBody(second, { topic: "x".repeat(40_000) })),
    });
    await drive(contract, coverage, dead.origin, booking, {
      expect: 503,
      headers: json,
      body: JSON.stringify(buildBookingBody(second)),
    });
    await awaitWholeWindow();
    await drive(contract, coverage, strict.origin, booking, {
      expect: 409,
      headers: json,
      body: JSON.stringify(buildBookingBody("2020-01-06T10:00:00Z")),
    });
    await drive(contract, coverage, strict.origin, booking, {
      expect: 429,
      headers: json,
      body: JSON.stringify(buildBookingBody(second)),
    });

    // Every documented status was reached, except 500 (the store would have to fail: the
    // in-process tests cover it, tests/compose/create_handler_test.ts and tests/routes/contact_test.ts).
    for (const operation of contract.operations) {
      const missed = operation.statuses.filter((status) =>
        status !== "500" && status !== "default" &&
        !coverage.seen.get(operation.operationId)?.has(status)
      );
      assert.deepEqual(missed, [], `${operation.operationId} was driven through every status`);
    }

    // Answers outside the operations: 404 for unknown paths and 405 for a known path with another
    // method are ErrorResponses with the headers every /api/ answer carries.
    for (
      const [method, path, status] of [
        ["GET", "/api/v1/nothing-here", 404],
        ["POST", "/api/v2/contact", 404],
        ["GET", "/api/v1/booking/slots/2026-01", 404],
        ["DELETE", "/api/v1/contact", 405],
        ["PUT", "/api/v1/booking", 405],
        ["POST", "/api/v1/health", 405],
        ["GET", "/api/v1/contact", 405],
      ] as const
    ) {
      const response = await fetch(`${main.origin}${path}`, { method });
      const body: { error: { code: string } } = await response.json();
      assert.equal(response.status, status, `${method} ${path}`);
      assert.ok(contract.validateError(body), `${method} ${path}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, "not-found");
      assert.deepEqual(contract.checkHeaders(response, contract.requiredHeaders), []);
      if (status === 405) assert.ok(response.headers.get("Allow"), `${method} ${path} has Allow`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all([smtp.stop(), feed.stop()]);
    rmSync(folder, { recursive: true, force: true });
  }
});
