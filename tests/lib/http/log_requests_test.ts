import { test } from "node:test";
import assert from "node:assert/strict";
import { logRequests } from "../../../lib/http/log_requests.ts";
import { toResponsePromise } from "../../../lib/http/create_pipeline.ts";

/** A logging handler over `answer`, with fixed clocks, and the lines it wrote. */
function createLogged(answer: (request: Request) => Promise<Response>) {
  const lines: string[] = [];
  let milliseconds = 0;
  const handler = logRequests(answer, {
    write: (line) => void lines.push(line),
    time: () => "2026-11-21T09:15:30.250Z",
    nowMilliseconds: () => (milliseconds += 1.25),
  });
  return { handler, lines };
}

test("logRequests() logs an answer ready at once before it returns, and passes it on ready", async () => {
  const { handler, lines } = createLogged(() => toResponsePromise(new Response("ok")));
  const answer = handler(new Request("http://localhost/api/v1/health?probe=1"));
  assert.ok(answer.response);
  assert.deepEqual(lines, [
    '{"time":"2026-11-21T09:15:30.250Z","level":"info","message":"Request","method":"GET",' +
    '"path":"/api/v1/health","status":200,"ms":1.3}',
  ]);
  const response = await answer;
  assert.equal(response, answer.response);
  assert.equal(await response.text(), "ok");
});

test("logRequests() logs an answer that comes later once it comes", async () => {
  const { handler, lines } = createLogged(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return new Response(null, { status: 201 });
  });
  const answer = handler(new Request("http://localhost/api/v1/booking", { method: "POST" }));
  assert.equal(answer.response, undefined);
  assert.deepEqual(lines, []);
  const response = await answer;
  assert.equal(response.status, 201);
  assert.equal(lines.length, 1);
  const { method, path, status } = JSON.parse(lines[0]);
  assert.deepEqual({ method, path, status }, {
    method: "POST",
    path: "/api/v1/booking",
    status: 201,
  });
});

test("logRequests() logs each request's own path, whatever the request before asked", async () => {
  const { handler, lines } = createLogged(() => toResponsePromise(new Response(null)));
  for (const url of ["/api/v1/health", "/api/v1/health?x=1", "/en/a%22b", "/api/v1/health", "/"]) {
    await handler(new Request(`http://localhost${url}`));
  }
  assert.deepEqual(lines.map((line) => JSON.parse(line).path), [
    "/api/v1/health",
    "/api/v1/health",
    "/en/a%22b",
    "/api/v1/health",
    "/",
  ]);
});

/** Whether `promise` settles within a few turns of the event loop. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(() => settled = true, () => settled = true);
  for (let turn = 0; turn < 5 && !settled; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return settled;
}

test("logRequests() withholds the answers whose line the log refuses, ready or later", async () => {
  // A log that has ended (a stopping process wrote its last line) refuses lines: a request
  // answered then would be one the log does not show.
  const offered: string[] = [];
  let cancelled = 0;
  const body = () =>
    new ReadableStream({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("page"));
      },
      cancel() {
        cancelled++;
      },
    });
  const refuse = (line: string) => {
    offered.push(line);
    return false;
  };
  const ready = logRequests(() => toResponsePromise(new Response(body())), { write: refuse });
  const readyAnswer = ready(new Request("http://localhost/en/services"));
  assert.equal(readyAnswer.response, undefined, "not handed to the server");
  assert.equal(await settlesSoon(readyAnswer), false);

  const later = logRequests(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return new Response(body(), { status: 201 });
  }, { write: refuse });
  assert.equal(await settlesSoon(later(new Request("http://localhost/api/v1/booking"))), false);
  assert.equal(offered.length, 2, "each line was offered");
  assert.equal(cancelled, 2, "each withheld body was released");
});

test("logRequests() answers as usual while the log takes its lines", async () => {
  const lines: string[] = [];
  const handler = logRequests(() => toResponsePromise(new Response("ok")), {
    write(line) {
      lines.push(line);
      return true;
    },
  });
  const answer = handler(new Request("http://localhost/api/v1/health"));
  assert.ok(answer.response);
  assert.equal(await (await answer).text(), "ok");
  assert.equal(lines.length, 1);
});
