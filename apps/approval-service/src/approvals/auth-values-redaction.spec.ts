import { REDACTED_AUTH_VALUE, withAuthTypeOnly, withoutAuthValues } from './auth-values-redaction';

const SECRET = 'secret-0042';

/** Shapes of a refused request's authentication that hold a value under no field the contract names. */
const ODD_SHAPES: Array<[string, unknown, unknown]> = [
  ['an array', [{ type: 'ApiKey', apiKey: SECRET }], {}],
  ['a misspelt field', { type: 'ApiKey', apikey: SECRET }, { type: 'ApiKey' }],
  ['a nested value', { type: 'BearerToken', token: { value: SECRET } }, { type: 'BearerToken' }],
  [
    'an unknown field',
    { type: 'CustomHeader', headerName: SECRET, extra: { deep: [SECRET] } },
    { type: 'CustomHeader' },
  ],
  ['a string', SECRET, {}],
  ['an unknown type', { type: SECRET }, {}],
  ['a type of another shape', { type: ['ApiKey', SECRET] }, {}],
];

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

  it('keeps only the contract’s fields of a request taken in, whatever else its authentication holds', () => {
    const taken = withoutAuthValues({
      webhook: { authentication: { type: 'ApiKey', apiKey: SECRET, token: SECRET, headerValue: SECRET } },
    });
    expect(taken).toEqual({ webhook: { authentication: { type: 'ApiKey', apiKey: REDACTED_AUTH_VALUE } } });
  });
});

describe(withAuthTypeOnly.name, () => {
  it.each(ODD_SHAPES)('keeps no value of %s, only a known type', (_shape, authentication, kept) => {
    const data = { tenantId: 't', webhook: { url: 'https://x.example.com', authentication } };
    const refused = withAuthTypeOnly(data);
    expect(JSON.stringify(refused)).not.toContain(SECRET);
    expect(refused).toEqual({ tenantId: 't', webhook: { url: 'https://x.example.com', authentication: kept } });
    expect(withAuthTypeOnly(refused)).toBe(refused);
  });

  it('keeps only the type of a well-formed authentication, and answers the same object when there is nothing to remove', () => {
    const refused = withAuthTypeOnly({
      webhook: { authentication: { type: 'BasicAuth', username: 'u', password: 'p' } },
    });
    expect(refused).toEqual({ webhook: { authentication: { type: 'BasicAuth' } } });
    for (const data of [{ webhook: {} }, { webhook: 'https://x.example.com' }, 'not an object', null]) {
      expect(withAuthTypeOnly(data)).toBe(data);
    }
  });
});
