import { REDACTED_AUTH_VALUE, withoutAuthValues } from './auth-values-redaction';

describe(withoutAuthValues.name, () => {
  it('replaces every auth value and keeps the rest of the request', () => {
    const data = {
      tenantId: 't',
      webhook: {
        url: 'https://x.example.com',
        authentication: { type: 'CustomHeader', headerName: 'X-Key', headerValue: 'secret' },
        timeoutSeconds: 5,
      },
    };
    expect(withoutAuthValues(data)).toEqual({
      tenantId: 't',
      webhook: {
        url: 'https://x.example.com',
        authentication: { type: 'CustomHeader', headerName: 'X-Key', headerValue: REDACTED_AUTH_VALUE },
        timeoutSeconds: 5,
      },
    });
    expect(
      JSON.stringify(
        withoutAuthValues({ webhook: { authentication: { type: 'BasicAuth', username: 'u', password: 'p' } } }),
      ),
    ).not.toMatch(/"(u|p)"/);
  });

  it('answers the same object when there is nothing to remove', () => {
    const none = { webhook: { authentication: { type: 'None' } } };
    expect(withoutAuthValues(none)).toBe(none);
    const done = withoutAuthValues({ webhook: { authentication: { type: 'ApiKey', apiKey: 'k' } } });
    expect(withoutAuthValues(done)).toBe(done);
    expect(withoutAuthValues('not an object')).toBe('not an object');
    expect(withoutAuthValues(null)).toBe(null);
  });
});
