import { randomBytes } from 'node:crypto';
import { validateEnv } from '@app/config';
import { ConnectorEnv } from './connector-env';

const valid = {
  DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
  AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
  ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
};
/** The longest delay a Node timer or AbortSignal.timeout keeps: past it a timer fires at once, or throws. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The connector's durations: each one is a timer, a deadline or a lifetime reckoned in milliseconds. */
const durations = Object.keys(new ConnectorEnv()).filter((name) => /_(MS|SECONDS)$/.test(name));

describe('ConnectorEnv durations', () => {
  it('knows its durations', () => {
    expect(durations).toEqual(expect.arrayContaining(['OAUTH_HTTP_TIMEOUT_MS', 'OAUTH_STATE_TTL_SECONDS']));
  });

  it.each(durations)('refuses %s past what a timer keeps, at start, naming it', (name) => {
    const tooLong = name.endsWith('_MS') ? LONGEST_TIMER_MS + 1 : Math.ceil((LONGEST_TIMER_MS + 1) / 1000);
    expect(() => validateEnv(ConnectorEnv, { ...valid, [name]: String(tooLong) })).toThrow(new RegExp(`${name}: `));
  });
});
