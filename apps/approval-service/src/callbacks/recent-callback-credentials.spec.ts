import { RecentCallbackCredentials } from './recent-callback-credentials';

describe('RecentCallbackCredentials', () => {
  it('keeps at most its bound, forgetting the oldest first', () => {
    const recent = new RecentCallbackCredentials(2);
    for (const n of [1, 2, 3]) recent.remember(`cb-${n}`, { id: `a-${n}`, callbackTokenHash: `h-${n}` });
    expect(recent.get('cb-1')).toBeUndefined();
    expect(recent.get('cb-2')).toEqual({ id: 'a-2', callbackTokenHash: 'h-2' });
    expect(recent.get('cb-3')).toEqual({ id: 'a-3', callbackTokenHash: 'h-3' });
  });

  it('forgets a credential once its approval is decided', () => {
    const recent = new RecentCallbackCredentials();
    recent.remember('cb', { id: 'a', callbackTokenHash: 'h' });
    recent.forget('cb');
    expect(recent.get('cb')).toBeUndefined();
  });
});
