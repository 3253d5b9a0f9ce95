import { ExtractionHeadStart, HEAD_START_WINDOW_MS } from './extraction-head-start';

describe('ExtractionHeadStart', () => {
  let now = 0;
  const sut = () => new ExtractionHeadStart(500, () => now);

  beforeEach(() => (now = 1_000_000));

  it('lets a tenant put up to its allowance ahead in a minute, batch by batch, and no batch past it', () => {
    const headStart = sut();
    for (let i = 0; i < 31; i++) expect(headStart.take('t1', 16)).toBe(true); // 496
    expect(headStart.take('t1', 16)).toBe(false);
    expect(headStart.take('t1', 4)).toBe(true);
    expect(headStart.take('t1', 1)).toBe(false);
  });

  it("counts each tenant's allowance on its own", () => {
    const headStart = sut();
    expect(headStart.take('t1', 500)).toBe(true);
    expect(headStart.take('t1', 1)).toBe(false);
    expect(headStart.take('t2', 500)).toBe(true);
  });

  it('gives the allowance again once the minute has passed', () => {
    const headStart = sut();
    expect(headStart.take('t1', 500)).toBe(true);
    now += HEAD_START_WINDOW_MS - 1;
    expect(headStart.take('t1', 1)).toBe(false);
    now += 1;
    expect(headStart.take('t1', 500)).toBe(true);
  });
});
