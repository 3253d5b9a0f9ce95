import { decodeCursor, encodeCursor } from './approval-cursor';

describe('decodeCursor', () => {
  const id = '3b241101-e2bb-4255-8caf-4136c566a962';
  const cursorOf = (at: string) => Buffer.from(`${at}|${id}`).toString('base64url');

  it.each([
    '2026-11-28T09:15:42.123456Z',
    '2024-02-29T23:59:59.999999Z',
    '0001-01-01T00:00:00.000000Z',
    '9999-12-31T23:59:59.999999Z',
  ])('takes back what encodeCursor made, microseconds included (%s)', (at) => {
    expect(decodeCursor(encodeCursor({ at, id }))).toEqual({ at, id });
  });

  it.each([
    '2026-13-45T25:61:61.000000Z',
    '2025-02-29T00:00:00.000000Z',
    '2026-01-01T24:00:00.000000Z',
    '2026-06-30T23:59:60.000000Z',
    '0000-01-01T00:00:00.000000Z',
    '2026-01-01T00:00:00.000Z',
  ])('refuses a time the list never writes: no such date or time, year 0, milliseconds only (%s)', (at) => {
    expect(decodeCursor(cursorOf(at))).toBeNull();
  });
});
