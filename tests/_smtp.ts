/**
 * A real SMTP server on 127.0.0.1 for tests (npm `smtp-server`), which parses what it receives
 * with postal-mime. It can be stopped and started again on the same port, to test delivery while
 * the mail server is down. Internal to tests/.
 *
 * @module
 */
import { SMTPServer } from "smtp-server";
import PostalMime, { type Email } from "postal-mime";

/** A message the server accepted, with its SMTP envelope and parsed form. */
export interface ReceivedMail {
  /** MAIL FROM. */
  envelopeFrom: string;
  /** RCPT TO, in order. */
  envelopeTo: string[];
  /** The raw message. */
  raw: string;
  /** The parsed message. */
  parsed: Email;
  /** A header's value as parsed (lower-case name), e.g. `reply-to`. */
  header(name: string): string | undefined;
}

/**
 * The next message's answer, held back: the sender waits after its DATA until `release`, so a
 * test can act while a delivery is in flight.
 */
export interface HeldAnswer {
  /** Resolves when the message has arrived (and the sender waits for the answer). */
  arrived: Promise<void>;
  /** Answers: `accept` keeps the message and says 250; `refuse` says 451 and keeps nothing. */
  release(answer: "accept" | "refuse"): void;
}

/** A running test SMTP server. */
export interface TestSmtpServer {
  /** The port it listens on (kept across stop and start). */
  port: number;
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  /** Messages received so far, in order of arrival. */
  messages: ReceivedMail[];
  /** Waits until at least `count` messages arrived. @throws {Error} After `timeoutMs` (10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Stops listening (connections are refused until `start`). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Holds back the answer to the next message that arrives (see {@linkcode HeldAnswer}). */
  hold(): HeldAnswer;
}

/**
 * Starts an SMTP server on 127.0.0.1 that accepts every message without authentication or TLS.
 *
 * @param port The port, 0 for a free one.
 */
export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  let server: SMTPServer | undefined;
  let currentPort = port;
  /** Holds waiting for the next messages, first first. */
  const holds: Array<{ arrive(): void; answer: Promise<"accept" | "refuse"> }> = [];

  function create(): SMTPServer {
    return new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      size: 10 * 1024 * 1024,
      onData(stream, session, callback) {
        const chunks: Uint8Array[] = [];
        stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
        stream.on("end", async () => {
          const raw = new TextDecoder().decode(
            chunks.reduce((all, chunk) => {
              const next = new Uint8Array(all.length + chunk.length);
              next.set(all);
              next.set(chunk, all.length);
              return next;
            }, new Uint8Array()),
          );
          const held = holds.shift();
          if (held) {
            held.arrive();
            if (await held.answer === "refuse") {
              const refusal = Object.assign(new Error("Try again later"), { responseCode: 451 });
              return callback(refusal);
            }
          }
          try {
            const parsed = await PostalMime.parse(raw);
            messages.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
              raw,
              parsed,
              header: (name) =>
                parsed.headers.find((header) => header.key === name.toLowerCase())?.value,
            });
            callback();
          } catch (error) {
            callback(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    });
  }

  async function start(): Promise<void> {
    server = create();
    // A client killed mid-session (the fault tests SIGKILL the service) resets its connection;
    // smtp-server reports that as an "error" event, which without a listener would crash the
    // test process on Node. The session is simply over.
    server.on("error", () => {});
    const listening = server.listen(currentPort, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      listening.once("listening", () => resolve());
      listening.once("error", reject);
    });
    const address = listening.address();
    if (address && typeof address === "object") currentPort = address.port;
  }

  await start();
  const api: TestSmtpServer = {
    get port() {
      return currentPort;
    },
    get url() {
      return `smtp://127.0.0.1:${currentPort}`;
    },
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`Expected ${count} messages, got ${messages.length}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    async stop() {
      const current = server;
      server = undefined;
      if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    start,
    hold() {
      let arrive = () => {};
      let release: (answer: "accept" | "refuse") => void = () => {};
      const arrived = new Promise<void>((resolve) => arrive = resolve);
      const answer = new Promise<"accept" | "refuse">((resolve) => release = resolve);
      holds.push({ arrive, answer });
      return { arrived, release };
    },
  };
  return api;
}
