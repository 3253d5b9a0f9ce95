import { REDACTED, redactSecrets } from './redact-secrets';

describe(redactSecrets.name, () => {
  it('replaces every credential field at any depth and keeps the rest', () => {
    const job = {
      executionId: 'exec-1',
      webhook: {
        url: 'https://erp.example.com/approvals',
        authentication: { type: 'CustomHeader', headerName: 'X-Key', headerValue: 'hv' },
        retries: [{ authentication: { type: 'BasicAuth', username: 'u', password: 'p' } }],
      },
      others: [{ apiKey: 'k' }, { token: 't' }, { refreshToken: 'r', clientSecret: 'c' }],
    };
    expect(redactSecrets(job)).toEqual({
      executionId: 'exec-1',
      webhook: {
        url: 'https://erp.example.com/approvals',
        authentication: { type: 'CustomHeader', headerName: 'X-Key', headerValue: REDACTED },
        retries: [{ authentication: { type: 'BasicAuth', username: 'u', password: REDACTED } }],
      },
      others: [{ apiKey: REDACTED }, { token: REDACTED }, { refreshToken: REDACTED, clientSecret: REDACTED }],
    });
  });
});
