import { randomBytes } from 'node:crypto';
import { validateEnv } from '@app/config';
import { ApprovalEnv } from './approval-env';

const valid = {
  DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
  AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
};
const whsec = (bytes = 32) => `whsec_${randomBytes(bytes).toString('base64')}`;

/** The start-up line naming WEBHOOK_SIGNING_SECRET when `value` is refused; null when it is taken. */
function refusal(value: string): string | null {
  try {
    validateEnv(ApprovalEnv, { ...valid, WEBHOOK_SIGNING_SECRET: value });
    return null;
  } catch (error) {
    return (error as Error).message.split('\n').find((line) => line.includes('WEBHOOK_SIGNING_SECRET')) ?? null;
  }
}

describe('WEBHOOK_SIGNING_SECRET at start-up', () => {
  it('refuses the published placeholder, a key of few or no bytes, and a value that is no base64, naming the variable', () => {
    for (const value of ['whsec_BASE64', 'whsec_', 'whsec_AAAA', `whsec_${Buffer.alloc(32).toString('base64')}`])
      expect([value, refusal(value)]).toEqual([value, expect.stringMatching(/WEBHOOK_SIGNING_SECRET/)]);
    expect(refusal('not-base64!!')).toMatch(/WEBHOOK_SIGNING_SECRET .*base64/);
    expect(refusal(`${whsec()} whsec_BASE64`)).toMatch(/placeholder/); // one weak secret of two while rotating
  });

  it('takes random secrets, one or several while rotating; none (unset or empty) signs nothing', () => {
    for (let i = 0; i < 50; i++) {
      expect(refusal(whsec())).toBeNull();
      expect(refusal(whsec(24))).toBeNull();
      expect(refusal(`${whsec()} ${whsec()}`)).toBeNull();
    }
    expect(refusal('')).toBeNull();
  });
});
