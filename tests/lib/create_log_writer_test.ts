import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogWriter } from "../../lib/create_log_writer.ts";
import type { LogOutput } from "../../lib/ports.ts";

/** An output whose timer and writes the test drives: nothing happens until it says so. */
function createManualOutput(options: { slow?: boolean } = {}) {
  const written: string[] = [];
  const timers: Array<{ callback: () => void; delayMilliseconds: number }> = [];
  const pendingWrites: Array<() => void> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const output: LogOutput = {
    write(text) {
      written.push(text);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      if (!options.slow) {
        inFlight--;
        return Promise.resolve();
      }
      return new Promise((resolve) =>
        pendingWrites.push(() => {
          inFlight--;
          resolve();
        })
      );
    },
    schedule(callback, delayMilliseconds) {
      timers.push({ callback, delayMilliseconds });
    },
  };
  return {
    output,
    written,
    timers,
    /** Fires the timers scheduled so far. */
    fireTimers() {
      for (const { callback } of timers.splice(0)) callback();
    },
    /** Completes the oldest write in flight, and lets the writer go on. */
    async completeWrite() {
      pendingWrites.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
    mostInFlight: () => mostInFlight,
  };
}

/** Completes writes one by one until `promise` settles. */
async function completeWritesUntil(
  manual: ReturnType<typeof createManualOutput>,
  promise: Promise<void> | undefined,
): Promise<void> {
  assert.ok(promise);
  let settled = false;
  void promise.then(() => settled = true);
  while (!settled) await manual.completeWrite();
}

/** Lets the writer's promises settle. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

test("createLogWriter() writes nothing until its 100 ms timer fires, then the lines as one batch", async () => {
  const manual = createManualOutput();
  const writer = createLogWriter(manual.output);
  writer.write("one");
  writer.write("two");
  writer.write("three");
  await settle();
  assert.deepEqual(manual.written, []);
  assert.deepEqual(manual.timers.map((timer) => timer.delayMilliseconds), [100], "one timer");
  manual.fireTimers();
  await settle();
  assert.deepEqual(manual.written, ["one\ntwo\nthree\n"]);

  writer.write("four");
  assert.equal(manual.timers.length, 1, "the next line starts the next timer");
  manual.fireTimers();
  await settle();
  assert.deepEqual(manual.written, ["one\ntwo\nthree\n", "four\n"]);
});

test("createLogWriter() writes at once when the buffer passes flushAtCharacters", async () => {
  const manual = createManualOutput();
  const writer = createLogWriter(manual.output, { flushAtCharacters: 12 });
  writer.write("12345");
  assert.deepEqual(manual.written, []);
  writer.write("67890"); // 12 characters with the line breaks
  assert.deepEqual(manual.written, ["12345\n67890\n"], "without waiting for the timer");
  manual.fireTimers();
  await settle();
  assert.deepEqual(manual.written, ["12345\n67890\n"], "the timer finds nothing left");
});

test("LogWriter.close() writes what is buffered, and each later line at once", async () => {
  const manual = createManualOutput();
  const writer = createLogWriter(manual.output);
  writer.write("answered");
  await writer.close();
  assert.deepEqual(manual.written, ["answered\n"]);
  writer.write("Stopped");
  await writer.flush();
  assert.deepEqual(manual.written, ["answered\n", "Stopped\n"]);
});

test("LogWriter.end() writes its line last, after those buffered and in flight, and refuses every later one", async () => {
  const manual = createManualOutput({ slow: true });
  const writer = createLogWriter(manual.output);
  assert.equal(writer.write("answered 1"), true);
  void writer.flush(); // a batch in flight while the process stops
  assert.equal(writer.write("answered 2"), true);
  const ended = writer.end("Stopped");
  assert.equal(writer.write("answered after the end"), false);
  await completeWritesUntil(manual, ended);
  assert.deepEqual(manual.written, ["answered 1\n", "answered 2\nStopped\n"]);
  assert.equal(writer.write("later still"), false);
  await writer.end("Stopped again");
  await writer.flush();
  assert.deepEqual(manual.written, ["answered 1\n", "answered 2\nStopped\n"], "one last line");
});

test("LogWriter.end() writes its line even while lines are being dropped", async () => {
  const manual = createManualOutput({ slow: true });
  const writer = createLogWriter(manual.output, { flushAtCharacters: 8, maxBufferedCharacters: 8 });
  writer.write("in flight"); // past flushAtCharacters: written at once, and stuck
  writer.write("buffered");
  assert.equal(writer.write("dropped"), true, "dropped for room, not refused");
  await completeWritesUntil(manual, writer.end("Stopped"));
  assert.deepEqual(manual.written, [
    "in flight\n",
    'buffered\n{"level":"warn","message":"Log lines dropped","count":1}\nStopped\n',
  ]);
});

test("createLogWriter() keeps every line, in order, with one write in flight while the output is slow", async () => {
  const manual = createManualOutput({ slow: true });
  const writer = createLogWriter(manual.output, { flushAtCharacters: 40 });
  const lines = Array.from({ length: 200 }, (_, index) => `line ${index}`);
  let flushed: Promise<void> | undefined;
  for (const [index, line] of lines.entries()) {
    writer.write(line);
    if (index === 120) flushed = writer.flush();
    if (index % 25 === 0) manual.fireTimers();
    if (index % 30 === 0) await manual.completeWrite();
  }
  await completeWritesUntil(manual, flushed);
  assert.match(manual.written.join(""), /line 120\n/, "flush() waits for the lines before it");
  await completeWritesUntil(manual, writer.close());
  assert.equal(manual.written.join(""), lines.map((line) => `${line}\n`).join(""));
  assert.ok(manual.written.length > 2, `${manual.written.length} batches`);
  assert.equal(manual.mostInFlight(), 1);
});

test("createLogWriter() drops lines past maxBufferedCharacters while the output is stuck, and says how many", async () => {
  const manual = createManualOutput({ slow: true });
  const writer = createLogWriter(manual.output, {
    flushAtCharacters: 8,
    maxBufferedCharacters: 16,
  });
  writer.write("first"); // 6 characters
  writer.write("second"); // 13: written at once, and the write hangs
  assert.deepEqual(manual.written, ["first\nsecond\n"]);
  for (const line of ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]) writer.write(line);
  // Buffered while the write hangs: a1…a6 (18 characters ≥ 16), then a7 and a8 are dropped.
  const closed = writer.close();
  await manual.completeWrite();
  await manual.completeWrite();
  await closed;
  assert.deepEqual(manual.written, [
    "first\nsecond\n",
    'a1\na2\na3\na4\na5\na6\n{"level":"warn","message":"Log lines dropped","count":2}\n',
  ]);
});

test("createLogWriter() loses only the batch whose write failed", async () => {
  let calls = 0;
  const written: string[] = [];
  const writer = createLogWriter({
    write(text) {
      calls++;
      if (calls === 1) return Promise.reject(new Error("Broken pipe (os error 32)"));
      written.push(text);
      return Promise.resolve();
    },
    schedule() {},
  });
  writer.write("lost");
  await writer.flush();
  writer.write("kept");
  await writer.close();
  assert.deepEqual(written, ["kept\n"]);
});
