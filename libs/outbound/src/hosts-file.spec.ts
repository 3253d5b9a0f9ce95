import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostsFile } from './hosts-file';

describe(HostsFile.name, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hosts-file-'));
    writeFileSync(
      join(dir, 'hosts'),
      [
        '# a comment naming docs.internal',
        '127.0.0.1\tlocalhost',
        '::1 localhost ip6-localhost',
        '10.0.0.5 Docs.Internal. docs   # an inline comment',
        '10.0.0.6 docs.internal',
        'not-an-address ghost.internal',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every address of every line naming the name, in order, whatever its case or trailing dot', async () => {
    const sut = new HostsFile(join(dir, 'hosts'));
    expect(await sut.addressesOf('DOCS.internal.', 0)).toEqual([
      { address: '10.0.0.5', family: 4 },
      { address: '10.0.0.6', family: 4 },
    ]);
    expect(await sut.addressesOf('localhost', 0)).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  });

  it('keeps to the family asked for, and lists nothing for names it lacks, comments or a line without an address', async () => {
    const sut = new HostsFile(join(dir, 'hosts'));
    expect(await sut.addressesOf('localhost', 6)).toEqual([{ address: '::1', family: 6 }]);
    expect(await sut.addressesOf('docs.internal', 6)).toEqual([]);
    expect(await sut.addressesOf('ghost.internal', 0)).toEqual([]);
    expect(await sut.addressesOf('comment', 0)).toEqual([]);
    expect(await new HostsFile(join(dir, 'missing')).addressesOf('localhost', 0)).toEqual([]);
  });

  it('keeps the names it read while the file cannot be read again (a moment of its rewrite), and takes a new one once it can', async () => {
    const path = join(dir, 'rewritten');
    writeFileSync(path, '10.0.0.9 docs.internal\n');
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const sut = new HostsFile(path);
      expect(await sut.addressesOf('docs.internal', 0)).toEqual([{ address: '10.0.0.9', family: 4 }]);
      rmSync(path);
      now += 6000;
      await sut.addressesOf('docs.internal', 0); // starts the re-read, which fails
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await sut.addressesOf('docs.internal', 0)).toEqual([{ address: '10.0.0.9', family: 4 }]);
      writeFileSync(path, '10.0.0.10 docs.internal\n');
      now += 6000;
      await sut.addressesOf('docs.internal', 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await sut.addressesOf('docs.internal', 0)).toEqual([{ address: '10.0.0.10', family: 4 }]);
    } finally {
      clock.mockRestore();
    }
  });
});
