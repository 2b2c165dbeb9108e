/**
 * iCalendar fixtures for tests: RFC 5545 text built with CRLF line endings, and a real loopback
 * HTTP server (node:http on 127.0.0.1) that serves a feed the test can change, break or stop.
 * Internal to tests/.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const CRLF = "\r\n";

/**
 * A VEVENT with a UID and a DTSTAMP, as content lines.
 *
 * @param uid The event's UID.
 * @param lines Its other properties, e.g. `"DTSTART:20261202T100000Z"`.
 */
export function buildEvent(uid: string, ...lines: string[]): string[] {
  return ["BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20261101T000000Z", ...lines, "END:VEVENT"];
}

/**
 * A VCALENDAR around components (VTIMEZONE, VEVENT …), CRLF line endings, ending in CRLF.
 *
 * @param components Each component's content lines.
 */
export function buildCalendar(...components: string[][]): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//studio-website//tests//EN",
    "CALSCALE:GREGORIAN",
    ...components.flat(),
    "END:VCALENDAR",
  ].join(CRLF) + CRLF;
}

/** Formats an instant as an iCalendar UTC date-time, e.g. `20261202T100000Z`. */
export function toIcsUtc(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** Answers one request of the feed server. */
export type FeedResponder = (request: IncomingMessage, response: ServerResponse) => void;

/** A running feed server. */
export interface IcsFeedServer {
  /** The feed's URL, with a secret-looking path as private iCal addresses have. */
  url: string;
  /** Requests received so far. */
  readonly requests: IncomingMessage[];
  /** Serves `text` as `text/calendar` from now on. */
  setBody(text: string): void;
  /** Answers requests with `respond` from now on. */
  setResponder(respond: FeedResponder): void;
  /** Stops listening and drops every open connection. Idempotent. */
  stop(): Promise<void>;
}

/** A 32-bit FNV-1a of a text, in hex: a tag that changes with the text. */
function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0).toString(16);
}

/**
 * Starts a feed server on 127.0.0.1 and a free port.
 *
 * @param body The feed served at first.
 */
export async function startIcsFeedServer(body = buildCalendar()): Promise<IcsFeedServer> {
  let text = body;
  // As calendar hosts do: an ETag of the text, and 304 to a request that names it.
  const serveText: FeedResponder = (request, response) => {
    const etag = `"${text.length}-${hashText(text)}"`;
    if (request.headers["if-none-match"] === etag) {
      response.writeHead(304, { ETag: etag });
      response.end();
      return;
    }
    response.writeHead(200, {
      "Content-Type": "text/calendar; charset=utf-8",
      "Content-Length": String(new TextEncoder().encode(text).byteLength),
      ETag: etag,
    });
    response.end(text);
  };
  let respond = serveText;
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    respond(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/calendar/ical/studio%40example.pt/private-5f0c1e2d/basic.ics`,
    requests,
    setBody(next) {
      text = next;
      respond = serveText;
    },
    setResponder(next) {
      respond = next;
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
