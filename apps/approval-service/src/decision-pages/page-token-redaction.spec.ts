import { withoutPageToken } from './page-token-redaction';

const ID = '418b10b3-46e5-48f4-9714-528adebc72d4';
const MAC = 'GfuMR8tIrT7CkqkWJuYwGzbW_O8WeYDqt2w8Xq6QKDw';
const TOKEN = `${ID}.k1.${MAC}`;

describe(withoutPageToken.name, () => {
  it.each([
    [`/v1/decision-pages/${TOKEN}`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/v1/decision%2Dpages/${TOKEN}`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/v1//decision-pages/${TOKEN}`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/v1/./decision-pages/${TOKEN}/`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/V1/DECISION-PAGES/${TOKEN}`, `/V1/DECISION-PAGES/${ID}.[redacted]`],
    [`/v1\\decision-pages%252F${ID}%252Ek1%252E${MAC}`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/v1/decision-pages/${ID}%2Fk1/${MAC}`, `/v1/decision-pages/${ID}.[redacted]`],
    [`/v1/approvals/${TOKEN}%0A/x`, `/v1/approvals/${ID}.[redacted]`],
    ['/v1/decision-pages/not-a-token', '/v1/decision-pages/.[redacted]'],
  ])('logs %s as %s', (path, logged) => {
    expect(withoutPageToken(path)).toBe(logged);
  });

  it('leaves a path without a token as it came', () => {
    for (const path of [`/v1/approvals/${ID}`, '/v1/approvals/a%20b', '/health//live', '/v1/decision-pages']) {
      expect(withoutPageToken(path)).toBe(path);
    }
  });
});
