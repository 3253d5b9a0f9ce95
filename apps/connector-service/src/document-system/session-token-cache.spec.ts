import { SessionTokenCache } from './session-token-cache';

describe(SessionTokenCache.name, () => {
  const held = (sut: SessionTokenCache, keys: string[]) => keys.filter((key) => sut.get(key) !== undefined);

  it('gives a lone tenant every entry, evicting its least recently used', () => {
    const sut = new SessionTokenCache(3);
    ['a1', 'a2', 'a3'].forEach((key) => sut.set('A', key, `st-${key}`, 600));
    sut.get('a1');
    sut.set('A', 'a4', 'st-a4', 600);
    expect(held(sut, ['a1', 'a2', 'a3', 'a4'])).toEqual(['a1', 'a3', 'a4']);
  });

  it('evicts from the tenant holding the most, so a tenant holding fewer keeps its sessions', () => {
    const sut = new SessionTokenCache(4);
    sut.set('B', 'b1', 'st-b1', 600);
    sut.set('B', 'b2', 'st-b2', 600);
    ['a1', 'a2', 'a3', 'a4'].forEach((key) => sut.set('A', key, `st-${key}`, 600));
    expect(held(sut, ['b1', 'b2', 'a1', 'a2', 'a3', 'a4'])).toEqual(['b1', 'b2', 'a3', 'a4']);
    // At equal shares the tenant adding one gives up its own.
    sut.set('B', 'b3', 'st-b3', 600);
    expect(held(sut, ['b1', 'b2', 'b3', 'a3', 'a4'])).toEqual(['b2', 'b3', 'a3', 'a4']);
  });

  it('drops an expired session and one forgotten with its token, not one renewed since', () => {
    const sut = new SessionTokenCache(4);
    sut.set('A', 'a1', 'st-old', 10);
    sut.set('A', 'a2', 'st-1', 600);
    sut.set('A', 'a2', 'st-2', 600);
    sut.forget('a2', 'st-1');
    expect(sut.get('a1')).toBeUndefined();
    expect(sut.get('a2')).toBe('st-2');
    sut.forget('a2', 'st-2');
    expect(sut.get('a2')).toBeUndefined();
  });
});
