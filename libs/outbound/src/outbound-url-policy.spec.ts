import axios from 'axios';
import { HttpPeer } from '@app/testing';
import { guardedAgents, GuardedAgents, outboundAxiosConfig } from './guarded-agents';
import { isOutboundRefusal, OutboundUrlPolicy } from './outbound-url-policy';

describe(OutboundUrlPolicy.name, () => {
  const strict = new OutboundUrlPolicy({ allowInsecure: false, allowPrivate: false });

  it.each([
    ['not a url', 'absolute'],
    ['/relative', 'absolute'],
    ['http://docs.example.com', 'https'],
    ['ftp://docs.example.com', 'https'],
    ['https://user:pw@docs.example.com', 'credentials'],
    ['https://169.254.169.254/latest', 'publicAddress'],
    ['https://[::ffff:127.0.0.1]/', 'publicAddress'],
    ['https://[::127.0.0.1]/', 'publicAddress'],
    ['https://[fec0::1]/', 'publicAddress'],
    ['https://[64:ff9b:1::a00:1]/', 'publicAddress'],
    ['https://0x7f.1/', 'publicAddress'],
    ['https://2130706433/', 'publicAddress'],
    ['https://localhost/', 'publicAddress'],
    ['https://LOCALHOST./', 'publicAddress'],
    ['https://api.localhost/', 'publicAddress'],
    ['https://docs.example.com/api', null],
    ['https://93.184.216.34/', null],
  ])('judges %s as breaking %s', (url, rule) => expect(strict.brokenRule(url)).toBe(rule));

  it('lets development allow plain http and private addresses', () => {
    const open = new OutboundUrlPolicy({ allowInsecure: true, allowPrivate: true });
    expect(open.brokenRule('http://127.0.0.1:3003')).toBeNull();
    expect(open.brokenRule('http://user:pw@127.0.0.1:3003')).toBe('credentials');
  });

  describe('guarded agents', () => {
    let peer: HttpPeer;
    let agents: GuardedAgents;
    beforeAll(async () => {
      peer = await new HttpPeer().start();
      agents = guardedAgents(new OutboundUrlPolicy({ allowInsecure: true, allowPrivate: false }));
    });
    afterAll(async () => {
      agents.destroy();
      await peer.stop();
    });

    it.each(['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost'])('refuse to connect to %s', async (host) => {
      const url = `http://${host}:${new URL(peer.url).port}/x`;
      const error = await axios.get(url, { ...outboundAxiosConfig(agents), timeout: 5000 }).catch((e: Error) => e);
      expect(isOutboundRefusal(error)).toBe(true);
      expect((error as Error).message).toMatch(/outbound URL policy/);
      expect(peer.received).toHaveLength(0);
    });
  });
});
