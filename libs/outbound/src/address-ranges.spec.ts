import { isPublicAddress } from './address-ranges';

describe(isPublicAddress.name, () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'the cloud metadata address (link-local)'],
    ['fe80::1', 'IPv6 link-local'],
    ['fd00::1', 'unique-local'],
    ['fd00:ec2::254', 'the AWS IPv6 metadata address (unique-local)'],
    ['fec0::1', 'site-local (deprecated)'],
    ['100.64.0.1', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'IPv6 unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback in hex'],
    ['::a00:1', 'IPv4-compatible private in hex'],
    ['64:ff9b::7f00:1', 'well-known NAT64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'well-known NAT64 of the metadata address'],
    ['64:ff9b:1::a00:1', 'local-use NAT64 (RFC 8215)'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard-only'],
  ])('refuses %s (%s)', (address) => expect(isPublicAddress(address)).toBe(false));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows %s', (address) => expect(isPublicAddress(address)).toBe(true));

  it('refuses what is not an address', () => expect(isPublicAddress('example.com')).toBe(false));
});
