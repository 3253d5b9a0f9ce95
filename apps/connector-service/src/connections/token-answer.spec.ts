import { providerWords, tokenSet, unusableToken } from './token-answer';

describe('token-answer', () => {
  describe(providerWords.name, () => {
    const sut = providerWords('s3cret+/=', { grant_type: 'refresh_token', refresh_token: 'rt-123' });

    it('takes out the secrets sent, as sent and as the form encoded them', () => {
      expect(sut('client_secret=s3cret%2B%2F%3D refresh_token=rt-123 (was s3cret+/=)')).toBe(
        'client_secret=[redacted] refresh_token=[redacted] (was [redacted])',
      );
    });

    it('takes out the Basic credentials sent (CLIENT_SECRET_BASIC): base64 of the id and secret is the secret', () => {
      const basic = Buffer.from('client:s3cret').toString('base64');
      const words = providerWords('s3cret', { grant_type: 'refresh_token' }, `Basic ${basic}`);
      expect(words(`no client for Authorization: Basic ${basic}`)).toBe(
        'no client for Authorization: Basic [redacted]',
      );
    });

    it('keeps at most 300 characters, without U+0000', () => {
      expect(sut(`bad\u0000${'x'.repeat(1000)}`)).toBe(`bad\uFFFD${'x'.repeat(296)}`);
    });
  });

  describe(unusableToken.name, () => {
    const words = providerWords('the-secret', {});

    it.each([
      [{ access_token: 'a.b-c_d~e+f/g=' }],
      [{ access_token: 'at', token_type: 'Bearer' }],
      [{ access_token: 'at', token_type: 'bearer' }],
    ])('takes %j', (answer) => {
      expect(unusableToken(answer, words)).toBeNull();
    });

    it.each([
      [{ access_token: '' }, /access_token/],
      [{ access_token: 'a\r\nb' }, /access_token/],
      [{ access_token: 'é' }, /access_token/],
      [{ access_token: 42 }, /access_token/],
      [{ access_token: 'at', token_type: 'DPoP' }, /token_type "DPoP", not Bearer/],
      [{ access_token: 'at', token_type: 1 }, /token_type 1, not Bearer/],
      [{ access_token: 'at', token_type: 'the-secret' }, /token_type "\[redacted\]"/],
    ])('refuses %j', (answer, reason) => {
      expect(unusableToken(answer, words)).toMatch(reason);
    });
  });

  describe(tokenSet.name, () => {
    const expiresAt = (expires_in: unknown) => tokenSet({ access_token: 'at', expires_in }).expiresAt;

    it('reads expires_in in seconds, a numeric string too', () => {
      expect(expiresAt(3600)!.getTime() - Date.now()).toBeCloseTo(3_600_000, -3);
      expect(expiresAt('60')!.getTime() - Date.now()).toBeCloseTo(60_000, -3);
    });

    it.each([[undefined], [0], [-5], ['soon'], [{}]])('takes expires_in %p for an unknown expiry', (value) => {
      expect(expiresAt(value)).toBeNull();
    });

    it('takes a life past any date for ten years', () => {
      const years = (expiresAt(1e308)!.getTime() - Date.now()) / (365 * 86_400_000);
      expect(years).toBeCloseTo(10, 1);
    });
  });
});
