/**
 * The log's buffered writer: lines are kept in memory and handed to the runtime's standard output
 * in batches, off the request path, so that a request pays for building its line and nothing
 * else. A synchronous write per line (`console.log`) cost more than answering a health check.
 *
 * @module
 */
import type { LogOutput } from "./ports.ts";

/** Options of {@linkcode createLogWriter}. */
export interface LogWriterOptions {
  /** How long a line may wait for its batch, in milliseconds. @default {100} */
  flushMilliseconds?: number;
  /**
   * Buffered characters (UTF-16 code units: bytes, for the ASCII a log mostly is) past which a
   * batch is written at once rather than on the timer. @default {65536}
   */
  flushAtCharacters?: number;
  /**
   * Buffered characters past which new lines are dropped (and counted, and the count logged
   * once there is room again) while the output cannot keep up: memory stays bounded when a log
   * reader stalls. @default {4194304}
   */
  maxBufferedCharacters?: number;
}

/** A buffered writer of log lines. */
export interface LogWriter {
  /**
   * Buffers one line (without its `\n`); never blocks and never throws.
   *
   * @returns `false` once the log has ended (see `end()`): the line is refused. Otherwise `true`,
   * also for a line dropped while the output cannot keep up (that one is counted and reported).
   */
  write(line: string): boolean;
  /**
   * Writes what is buffered now.
   *
   * @returns Once every line written before the call has been handed to the output.
   */
  flush(): Promise<void>;
  /**
   * Flushes, and from then on writes each line as it comes (lines of a stopping process must
   * not wait for a timer that no longer holds it).
   *
   * @returns Once every line written before the call has been handed to the output.
   */
  close(): Promise<void>;
  /**
   * Closes, writes `line` as the log's last, and refuses every line after it: the last thing a
   * stopping process writes before it exits, so that no line comes after it or dies unwritten.
   *
   * @param line The last line (without its `\n`).
   * @returns Once every line, the last included, has been handed to the output.
   */
  end(line: string): Promise<void>;
}

interface Batch {
  promise: Promise<void>;
  resolve(): void;
}

function createBatch(): Batch {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => resolve = settle);
  return { promise, resolve };
}

/**
 * Creates a buffered writer of log lines over a runtime's output. A line waits at most
 * `flushMilliseconds` (on a timer that does not keep the process alive), or less when the buffer
 * passes `flushAtCharacters`. One write is in flight at a time and lines keep their order; a
 * failed write (the output is gone) loses its batch and nothing else, as there is nowhere left to
 * report it.
 *
 * @param output Where batches go, and the timer.
 * @param options Delays and sizes.
 * @returns The writer; `close()` it, or `end()` it with a last line, before the process exits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLogWriter } from "./create_log_writer.ts";
 *
 * const written: string[] = [];
 * const writer = createLogWriter({
 *   write: (text) => Promise.resolve(void written.push(text)),
 *   schedule() {}, // the timer never fires here: close() writes the batch
 * });
 * writer.write('{"message":"one"}');
 * writer.write('{"message":"two"}');
 * assert.deepEqual(written, []);
 * await writer.close();
 * assert.deepEqual(written, ['{"message":"one"}\n{"message":"two"}\n']);
 * ```
 */
export function createLogWriter(output: LogOutput, options: LogWriterOptions = {}): LogWriter {
  const {
    flushMilliseconds = 100,
    flushAtCharacters = 65_536,
    maxBufferedCharacters = 4_194_304,
  } = options;
  const buffer = createLineBuffer(maxBufferedCharacters);
  let timerPending = false;
  let closed = false;
  let ended = false;
  // Settles once the lines now buffered are written; `writing` is the batch in flight.
  let next = createBatch();
  let writing: Promise<void> | undefined;

  function onTimer(): void {
    timerPending = false;
    void flush();
  }

  async function writeBatches(): Promise<void> {
    while (!buffer.isEmpty()) {
      const text = buffer.take();
      const batch = next;
      next = createBatch();
      writing = batch.promise;
      try {
        await output.write(text);
      } catch {
        // The output is gone (a closed pipe): there is nowhere else to write these lines.
      }
      batch.resolve();
    }
    writing = undefined;
  }

  function flush(): Promise<void> {
    if (buffer.isEmpty()) return writing ?? Promise.resolve();
    const promise = next.promise;
    if (!writing) void writeBatches();
    return promise;
  }

  function write(line: string): boolean {
    if (ended) return false;
    if (!buffer.push(line)) return true;
    if (closed || buffer.characters() >= flushAtCharacters) void flush();
    else if (!timerPending) {
      timerPending = true;
      output.schedule(onTimer, flushMilliseconds);
    }
    return true;
  }

  function close(): Promise<void> {
    closed = true;
    return flush();
  }

  return {
    write,
    flush,
    close,
    end(line) {
      if (ended) return flush();
      ended = true;
      buffer.pushLast(line);
      return close();
    },
  };
}

/** The lines waiting for the output, within a bound; those past it are counted, not kept. */
interface LineBuffer {
  /** Keeps a line; `false` when the buffer is full and the line was dropped (and counted). */
  push(line: string): boolean;
  /** Keeps the log's last line, past the bound, after the count of the lines dropped. */
  pushLast(line: string): void;
  /** Whether there is nothing to write: no line and no count of dropped lines. */
  isEmpty(): boolean;
  /** The characters buffered. */
  characters(): number;
  /** The buffered lines as one text, each ending in a newline, the count last; empties it. */
  take(): string;
}

function createLineBuffer(maxBufferedCharacters: number): LineBuffer {
  let lines: string[] = [];
  let characters = 0;
  let dropped = 0;

  /** The line that counts the lines dropped since the last one, and restarts the count. */
  function takeDroppedLine(): string {
    const line = `{"level":"warn","message":"Log lines dropped","count":${dropped}}`;
    dropped = 0;
    return line;
  }

  return {
    push(line) {
      if (characters >= maxBufferedCharacters) {
        dropped++;
        return false;
      }
      lines.push(line);
      characters += line.length + 1;
      return true;
    },
    pushLast(line) {
      // The buffer's bound is for lines that keep coming: the last line is never dropped.
      if (dropped > 0) lines.push(takeDroppedLine());
      lines.push(line);
      characters += line.length + 1;
    },
    isEmpty: () => lines.length === 0 && dropped === 0,
    characters: () => characters,
    take() {
      let text = lines.join("\n") + "\n";
      if (dropped > 0) text += takeDroppedLine() + "\n";
      lines = [];
      characters = 0;
      return text;
    },
  };
}
