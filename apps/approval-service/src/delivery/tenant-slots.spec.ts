import { TenantSlots } from './tenant-slots';

describe(TenantSlots.name, () => {
  it('gives a tenant up to its share and other tenants theirs regardless', async () => {
    const sut = new TenantSlots(2, 1000);
    expect(await sut.take('a', false)).toBe(true);
    expect(await sut.take('a', false)).toBe(true);
    expect(await sut.take('a', false)).toBe(false);
    expect(await sut.take('b', false)).toBe(true);
  });

  it('hands a released slot to the tenant that waits for it', async () => {
    const sut = new TenantSlots(1, 1000);
    await sut.take('a', false);
    const waiting = sut.take('a', true);
    sut.release('a');
    expect(await waiting).toBe(true);
    expect(sut.inUseBy('a')).toBe(1);
    sut.release('a');
    expect(sut.inUseBy('a')).toBe(0);
  });

  it('gives up waiting after its bound', async () => {
    const sut = new TenantSlots(1, 100);
    await sut.take('a', false);
    const started = Date.now();
    expect(await sut.take('a', true)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    sut.release('a');
    expect(sut.inUseBy('a')).toBe(0);
  });
});
