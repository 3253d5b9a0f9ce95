import { replayRequestOf } from './replay-decisions.command';

describe(replayRequestOf.name, () => {
  it('takes a time with its zone, a tenant and --dry-run', () => {
    expect(replayRequestOf(['--since', '2026-11-30T10:00:00+01:00', '--tenant', 't-1', '--dry-run'])).toEqual({
      since: new Date('2026-11-30T09:00:00Z'),
      tenantId: 't-1',
      dryRun: true,
    });
    expect(replayRequestOf(['--since', '2026-11-30T10:00:00.250Z'])).toEqual({
      since: new Date('2026-11-30T10:00:00.250Z'),
      tenantId: null,
      dryRun: false,
    });
  });

  it.each([
    [[]],
    [['--since', '2026-11-30T10:00:00']],
    [['--since', '2026-11-30']],
    [['--since', '2026-13-45T10:00:00Z']],
    [['--since', 'yesterday']],
  ])('refuses %j: a replay needs a time that means the same everywhere', (argv) => {
    expect(() => replayRequestOf(argv)).toThrow('--since must be an ISO 8601 time with its zone');
  });

  it('refuses an unknown option and an empty tenant', () => {
    expect(() => replayRequestOf(['--since', '2026-11-30T10:00:00Z', '--tenants', 'a'])).toThrow(/--tenants/);
    expect(() => replayRequestOf(['--since', '2026-11-30T10:00:00Z', '--tenant', ' '])).toThrow('--tenant');
  });
});
