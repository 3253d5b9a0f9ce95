import ipaddr from 'ipaddr.js';

/** IPv6 classes ipaddr.js calls plain "unicast" but that reach local or deprecated targets. */
const REFUSED_IPV6_CLASSES = (
  [
    ['ipv4Compatible', '::', 96], // ::7f00:1 is 127.0.0.1 to some stacks (RFC 4291 §2.5.5.1, deprecated)
    ['siteLocal', 'fec0::', 10], // deprecated by RFC 3879, still routed locally by some stacks
    ['localUseNat64', '64:ff9b:1::', 48], // RFC 8215: translates to whatever the local network chooses
  ] as const
).map(([name, prefix, bits]) => ({ name, range: [ipaddr.IPv6.parse(prefix), bits] as [ipaddr.IPv6, number] }));

const WELL_KNOWN_NAT64: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/**
 * The class of an address: an ipaddr.js range name, one of the extra IPv6 classes above, or
 * `unicast` for a public address. IPv4 carried in IPv6 (mapped, well-known NAT64) is judged as IPv4.
 */
export function addressClass(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return `ipv4Mapped:${v6.toIPv4Address().range()}`;
  if (v6.match(WELL_KNOWN_NAT64)) return `nat64:${ipaddr.fromByteArray(v6.toByteArray().slice(12)).range()}`;
  const extra = REFUSED_IPV6_CLASSES.find((c) => v6.match(c.range));
  if (extra) return extra.name;
  const range = v6.range();
  // Anything outside 2000::/3 is not global unicast, whatever name a future table gives it.
  return range === 'unicast' && !v6.match(GLOBAL_UNICAST) ? 'nonGlobal' : range;
}

/**
 * Whether an IP address is on the public internet. Only unicast passes, so every other range is refused,
 * among them link-local (169.254.169.254, the cloud metadata address) and unique-local (fd00:ec2::254,
 * the AWS IPv6 metadata address).
 */
export function isPublicAddress(address: string): boolean {
  return addressClass(address).split(':').at(-1) === 'unicast';
}
