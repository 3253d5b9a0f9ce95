import ipaddr from 'ipaddr.js';

/** Ranges a webhook may never reach unless private networks are allowed (SSRF). */
const REFUSED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal', // includes 169.254.169.254, the cloud metadata address
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'as112v6',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'discard',
]);

/** Whether an IP address is on the public internet (not loopback, private, link-local, metadata…). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return !REFUSED_RANGES.has(parsed.range());
}
