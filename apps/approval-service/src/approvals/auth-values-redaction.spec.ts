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
    for (const data of [{ webhook: {} }, { webhook: null }, { webhook: 5 }, { tenantId: 't' }, 7, null]) {
      expect(withAuthTypeOnly(data)).toBe(data);
    }
  });

  it.each([
    ['an array', [{ url: 'https://x.example.com', authentication: { type: 'ApiKey', apiKey: SECRET } }]],
    ['an array of arrays', [[{ authentication: { type: 'BearerToken', token: SECRET } }]]],
    ['a string', `https://user:${SECRET}@x.example.com`],
  ])('keeps nothing of a webhook that is %s', (_shape, webhook) => {
    const refused = withAuthTypeOnly({ tenantId: 't', executionId: 'e', webhook });
    expect(refused).toEqual({ tenantId: 't', executionId: 'e' });
    expect(withAuthTypeOnly(refused)).toBe(refused);
  });

  it.each([
    ['a misspelt webhook field', { url: 'https://x.example.com', authentification: { apiKey: SECRET } }],
    ['a URL with a password', { url: `https://user:${SECRET}@x.example.com/hook` }],
  ])('keeps of a webhook only the contract’s fields, a URL without its password: %s', (_shape, webhook) => {
    const refused = withAuthTypeOnly({ tenantId: 't', webhook: { ...webhook, timeoutSeconds: 30 } });
    expect(JSON.stringify(refused)).not.toContain(SECRET);
    expect(refused).toEqual({ tenantId: 't', webhook: expect.objectContaining({ timeoutSeconds: 30 }) });
    expect(withAuthTypeOnly(refused)).toBe(refused);
  });

  it('keeps only the contract’s fields of a request, so a secret under a misspelt one goes', () => {
    const data = { tenantId: 't', executionId: 'e', stepInput: { a: 1 }, webhok: { apiKey: SECRET }, apiKey: SECRET };
    const refused = withAuthTypeOnly(data);
    expect(refused).toEqual({ tenantId: 't', executionId: 'e', stepInput: { a: 1 } });
  });

  it.each([
    ['an array', [{ tenantId: 't', webhook: { authentication: { type: 'ApiKey', apiKey: SECRET } } }]],
    ['a string', SECRET],
  ])('keeps nothing of request data that is %s', (_shape, data) => {
    const refused = withAuthTypeOnly(data);
    expect(refused).toEqual({});
    expect(withAuthTypeOnly(refused)).toBe(refused);
  });
});
