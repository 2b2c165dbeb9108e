/**
 * Who the client is, for rate limiting: the connection's address, or — only when the operator
 * names a trusted proxy header — the address that header carries. IPv6 clients count per /64.
 *
 * IPv6 addresses are read and written by the platform's URL parser (the WHATWG URL Standard's
 * IPv6 parser and serializer, which writes the RFC 5952 form), which every runtime has loaded
 * already; `ipaddr.js`, which did this before, is a CommonJS package that lengthened every cold
 * start on Deno. The tests compare the keys with `ipaddr.js`'s.
 *
 * @module
 */

/** The proxy headers an operator may trust (`STUDIO_TRUST_PROXY`). */
export const TRUSTED_PROXY_HEADERS = ["x-forwarded-for", "cf-connecting-ip", "x-real-ip"] as const;

/** A header that carries the client address behind a reverse proxy. */
export type TrustedProxyHeader = typeof TRUSTED_PROXY_HEADERS[number];

/** The key that all clients share whose address cannot be known (no connection info, bad header). */
export const UNKNOWN_CLIENT = "unknown";

const IPV4_PATTERN = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Turns an address into the key a client is counted under: an IPv4 address as it is, an
 * IPv4-mapped IPv6 address as its IPv4 address, any other IPv6 address as its /64 network
 * (for example `2001:db8:1:2::/64`).
 *
 * @param address A textual IPv4 or IPv6 address, with or without brackets or a zone.
 * @returns The key, or `undefined` when `address` is not an IP address.
 */
export function toClientKey(address: string): string | undefined {
  const text = address.trim();
  if (IPV4_PATTERN.test(text)) return text;
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  // A zone (`fe80::1%eth0`) names the local interface, not the client.
  const parts = parseIpv6(bare.replace(/%[\w.-]+$/, ""));
  if (!parts) return undefined;
  if (parts.slice(0, 5).every((part) => part === 0) && parts[5] === 0xffff) {
    return [parts[6] >> 8, parts[6] & 255, parts[7] >> 8, parts[7] & 255].join(".");
  }
  const network = formatIpv6([...parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network}/64`;
}

/** The eight 16-bit groups of an IPv6 address, or `undefined` when it is not one. */
function parseIpv6(text: string): number[] | undefined {
  if (!text.includes(":") || /[^0-9a-f:.]/i.test(text)) return undefined;
  // An embedded IPv4 address (`::ffff:192.0.2.1`) is written as two groups first: Bun's URL
  // parser refuses some valid forms of it (`::0:0:0:0:0.0.0.0`).
  const ipv4 = text.lastIndexOf(":") + 1;
  let hex = text;
  if (text.includes(".", ipv4)) {
    const tail = text.slice(ipv4);
    if (!IPV4_PATTERN.test(tail)) return undefined;
    const [a, b, c, d] = tail.split(".").map(Number);
    hex = `${text.slice(0, ipv4)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  let host: string;
  try {
    host = new URL(`http://[${hex}]/`).hostname;
  } catch {
    return undefined;
  }
  // The serializer's form: lower-case hex groups, the longest run of zeros as `::`.
  const [head, tail] = host.slice(1, -1).split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined
    ? []
    : new Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16));
}

/** An IPv6 address in its RFC 5952 form (the URL serializer's), e.g. `2001:db8:1:2::`. */
function formatIpv6(parts: readonly number[]): string {
  return new URL(`http://[${parts.map((part) => part.toString(16)).join(":")}]/`).hostname
    .slice(1, -1);
}

/** What the server knows of the connection (as `Deno.ServeHandlerInfo` gives it). */
export interface ConnectionInfo {
  /** The peer's address; `hostname` is an IP address for TCP connections. */
  remoteAddr?: { hostname?: string };
}

/**
 * Reads the client key of a request.
 *
 * With `trustProxy` unset, forwarding headers are ignored (anyone can send them) and the
 * connection's address counts. With `x-forwarded-for`, the rightmost address counts (the one the
 * trusted proxy appended); with `cf-connecting-ip` or `x-real-ip`, the header's value. A trusted
 * header that is missing or not an address falls back to the connection's address.
 *
 * @param request The request.
 * @param info The connection info, when the server gives it.
 * @param trustProxy The trusted header, if any.
 * @returns A key from {@linkcode toClientKey}, or {@linkcode UNKNOWN_CLIENT}.
 */
export function readClientKey(
  request: Request,
  info: ConnectionInfo | undefined,
  trustProxy?: TrustedProxyHeader,
): string {
  return createClientKeyReader(trustProxy)(request, info);
}

/**
 * Creates a {@linkcode readClientKey} for one handler that remembers the key of the connection
 * address it saw last: consecutive requests mostly come from one address (a kept-alive
 * connection, a proxy), which then is not parsed again. This runs on every request.
 *
 * @param trustProxy The trusted header, if any.
 * @returns The reader.
 */
export function createClientKeyReader(
  trustProxy?: TrustedProxyHeader,
): (request: Request, info: ConnectionInfo | undefined) => string {
  let lastConnection = { hostname: "", key: UNKNOWN_CLIENT };
  return (request, info) => {
    if (trustProxy) {
      const value = request.headers.get(trustProxy);
      if (value) {
        const candidate = trustProxy === "x-forwarded-for"
          ? value.slice(value.lastIndexOf(",") + 1)
          : value;
        const key = toClientKey(candidate);
        if (key) return key;
      }
    }
    const hostname = info?.remoteAddr?.hostname;
    if (!hostname) return UNKNOWN_CLIENT;
    if (hostname !== lastConnection.hostname) {
      lastConnection = { hostname, key: toClientKey(hostname) ?? UNKNOWN_CLIENT };
    }
    return lastConnection.key;
  };
}
