import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ConnectionInfo,
  readClientKey,
  toClientKey,
  TRUSTED_PROXY_HEADERS,
  UNKNOWN_CLIENT,
} from "../../../lib/http/client_address.ts";

const CONNECTION: ConnectionInfo = { remoteAddr: { hostname: "198.51.100.9" } };

function requestWith(headers: Record<string, string>): Request {
  return new Request("http://localhost:8000/api/v1/health", { headers });
}

test("toClientKey() keeps an IPv4 address as it is", () => {
  assert.equal(toClientKey("203.0.113.7"), "203.0.113.7");
  assert.equal(toClientKey("0.0.0.0"), "0.0.0.0");
  assert.equal(toClientKey("255.255.255.255"), "255.255.255.255");
  assert.equal(toClientKey(" 203.0.113.7 "), "203.0.113.7");
});

test("toClientKey() counts two IPv6 addresses in the same /64 under one key", () => {
  assert.equal(toClientKey("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  assert.equal(toClientKey("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  assert.equal(toClientKey("2001:db8:1:2:a:b:c:d"), "2001:db8:1:2::/64");
});

test("toClientKey() gives IPv6 addresses in different /64 networks different keys", () => {
  assert.equal(toClientKey("2001:db8:1:3::1"), "2001:db8:1:3::/64");
  assert.notEqual(toClientKey("2001:db8:1:2::1"), toClientKey("2001:db8:1:3::1"));
  assert.equal(toClientKey("::1"), "::/64");
  assert.equal(toClientKey("fe80::1"), "fe80::/64");
});

test("toClientKey() gives compressed, expanded and upper-case IPv6 forms the same key", () => {
  const expected = "2001:db8:1:2::/64";
  assert.equal(toClientKey("2001:0db8:0001:0002:0000:0000:0000:0001"), expected);
  assert.equal(toClientKey("2001:DB8:1:2:0:0:0:1"), expected);
  assert.equal(toClientKey("2001:db8:1:2::1"), expected);
});

test("toClientKey() accepts a bracketed IPv6 address", () => {
  assert.equal(toClientKey("[2001:db8:1:2::1]"), "2001:db8:1:2::/64");
  assert.equal(toClientKey("[::1]"), "::/64");
});

test("toClientKey() drops an IPv6 zone id", () => {
  assert.equal(toClientKey("fe80::1%eth0"), "fe80::/64");
  assert.equal(toClientKey("fe80::2%eth1"), "fe80::/64");
});

test("toClientKey() turns an IPv4-mapped IPv6 address into its IPv4 address", () => {
  assert.equal(toClientKey("::ffff:203.0.113.7"), "203.0.113.7");
  assert.equal(toClientKey("::ffff:cb00:7107"), "203.0.113.7");
  assert.equal(toClientKey("[::ffff:203.0.113.7]"), "203.0.113.7");
});

test("toClientKey() returns undefined for text that is not an IP address", () => {
  for (
    const garbage of [
      "",
      "   ",
      "unknown",
      "localhost",
      "999.1.1.1",
      "1.2.3",
      "01.2.3.4",
      "1.2.3.4:8080",
      "1.1.1.1 2.2.2.2",
      "2001:db8::g",
      "2001:db8::1/64",
      "[2001:db8::1",
      "1:2:3:4:5:6:7:8:9",
    ]
  ) {
    assert.equal(toClientKey(garbage), undefined, JSON.stringify(garbage));
  }
});

test("readClientKey() ignores forwarding headers when trustProxy is unset", () => {
  const request = requestWith({
    "x-forwarded-for": "1.1.1.1, 2.2.2.2",
    "x-real-ip": "3.3.3.3",
    "cf-connecting-ip": "4.4.4.4",
  });
  assert.equal(readClientKey(request, CONNECTION), "198.51.100.9");
  assert.equal(readClientKey(request, CONNECTION, undefined), "198.51.100.9");
});

test("readClientKey() uses the rightmost X-Forwarded-For entry when it is trusted", () => {
  for (
    const value of [
      "1.1.1.1, 2.2.2.2",
      "1.1.1.1,2.2.2.2",
      "  1.1.1.1 ,   2.2.2.2  ",
      "9.9.9.9, 1.1.1.1, 2.2.2.2",
      "2.2.2.2",
    ]
  ) {
    const request = requestWith({ "x-forwarded-for": value });
    assert.equal(readClientKey(request, CONNECTION, "x-forwarded-for"), "2.2.2.2", value);
  }
});

test("readClientKey() groups a trusted X-Forwarded-For IPv6 entry per /64", () => {
  const request = requestWith({ "x-forwarded-for": "1.1.1.1, 2001:db8:1:2::99" });
  assert.equal(readClientKey(request, CONNECTION, "x-forwarded-for"), "2001:db8:1:2::/64");
});

test("readClientKey() uses a trusted CF-Connecting-IP or X-Real-IP value", () => {
  const request = requestWith({
    "x-forwarded-for": "1.1.1.1",
    "x-real-ip": "3.3.3.3",
    "cf-connecting-ip": "4.4.4.4",
  });
  assert.equal(readClientKey(request, CONNECTION, "cf-connecting-ip"), "4.4.4.4");
  assert.equal(readClientKey(request, CONNECTION, "x-real-ip"), "3.3.3.3");
  assert.deepEqual([...TRUSTED_PROXY_HEADERS], [
    "x-forwarded-for",
    "cf-connecting-ip",
    "x-real-ip",
  ]);
});

test("readClientKey() falls back to the connection address when the trusted header is missing", () => {
  const request = requestWith({ "x-real-ip": "3.3.3.3" });
  assert.equal(readClientKey(request, CONNECTION, "x-forwarded-for"), "198.51.100.9");
  assert.equal(readClientKey(request, CONNECTION, "cf-connecting-ip"), "198.51.100.9");
});

test("readClientKey() falls back to the connection address when the trusted header is garbage", () => {
  for (const value of ["unknown", "1.1.1.1, garbage", "1.1.1.1,", "_hidden", "999.1.1.1"]) {
    const request = requestWith({ "x-forwarded-for": value });
    assert.equal(readClientKey(request, CONNECTION, "x-forwarded-for"), "198.51.100.9", value);
  }
  const realIp = requestWith({ "x-real-ip": "not an address" });
  assert.equal(readClientKey(realIp, CONNECTION, "x-real-ip"), "198.51.100.9");
});

test("readClientKey() keys the connection address like toClientKey()", () => {
  const request = requestWith({});
  const ipv6 = { remoteAddr: { hostname: "2001:db8:1:2::5" } };
  assert.equal(readClientKey(request, ipv6), "2001:db8:1:2::/64");
  const mapped = { remoteAddr: { hostname: "::ffff:203.0.113.7" } };
  assert.equal(readClientKey(request, mapped), "203.0.113.7");
});

test("readClientKey() returns UNKNOWN_CLIENT when no address is known", () => {
  assert.equal(UNKNOWN_CLIENT, "unknown");
  const request = requestWith({ "x-forwarded-for": "2.2.2.2" });
  assert.equal(readClientKey(request, undefined), UNKNOWN_CLIENT);
  assert.equal(readClientKey(request, {}), UNKNOWN_CLIENT);
  assert.equal(readClientKey(request, { remoteAddr: {} }), UNKNOWN_CLIENT);
  assert.equal(readClientKey(request, { remoteAddr: { hostname: "" } }), UNKNOWN_CLIENT);
  assert.equal(readClientKey(request, { remoteAddr: { hostname: "/tmp/socket" } }), UNKNOWN_CLIENT);
  const garbage = requestWith({ "x-forwarded-for": "garbage" });
  assert.equal(readClientKey(garbage, undefined, "x-forwarded-for"), UNKNOWN_CLIENT);
});

test("toClientKey() gives every IPv6 address the key ipaddr.js gives it", async () => {
  const { default: ipaddr } = await import("ipaddr.js");
  /** The key ipaddr.js gives an address: what the service's own computation must equal. */
  const expected = (address: string) => {
    const parsed = ipaddr.IPv6.parse(address);
    if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
    return `${new ipaddr.IPv6([...parsed.parts.slice(0, 4), 0, 0, 0, 0]).toRFC5952String()}/64`;
  };
  // ipaddr.js reads the deprecated IPv4-compatible form (`::192.0.2.1`, RFC 4291 2.5.5.1) as
  // IPv4-mapped; it is the /64 of `::`, like any other address there.
  const ipv4Compatible = /^::(\d+\.){3}\d+$/;
  fc.assert(
    fc.property(fc.ipV6().filter((address) => !ipv4Compatible.test(address)), (address) => {
      assert.equal(toClientKey(address), expected(address), address);
    }),
    { numRuns: 2000 },
  );
  assert.equal(toClientKey("::192.0.2.1"), "::/64");
  for (
    const address of ["::ffff:192.0.2.1", "::ffff:c000:201", "64:ff9b::192.0.2.1", "::", "::1"]
  ) {
    assert.equal(toClientKey(address), expected(address), address);
  }
  assert.equal(toClientKey("fe80::1%eth0"), "fe80::/64");
  for (const text of ["not an address", "1:2:3", "1::2::3", "[::1", "::g", "12345::", "1.2.3"]) {
    assert.equal(toClientKey(text), undefined, text);
  }
});
