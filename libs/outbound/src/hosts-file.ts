import type { LookupAddress } from 'node:dns';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';

const HOSTS_FILE = '/etc/hosts';
const REREAD_MS = 5000;

type HostAddresses = Map<string, LookupAddress[]>;

/**
 * The addresses /etc/hosts gives names, as glibc's "files" source answers them: every line naming the name, in
 * the file's order. Read at the first lookup, then again in the background at most every few seconds.
 */
export class HostsFile {
  private names?: Promise<HostAddresses>;
  private readAt = 0;

  constructor(private readonly path = HOSTS_FILE) {}

  /** The addresses of `family` (0: both) the file gives `name`; none when it does not list it. */
  async addressesOf(name: string, family: 0 | 4 | 6): Promise<LookupAddress[]> {
    if (!this.names || Date.now() - this.readAt > REREAD_MS) {
      this.readAt = Date.now();
      const reading = readHostAddresses(this.path);
      // A re-read replaces the names once done, and only if the file could be read (it may be caught mid-rewrite);
      // until then lookups use the names read before.
      if (this.names) void reading.then((names) => names && (this.names = Promise.resolve(names)));
      else this.names = reading.then((names) => names ?? new Map());
    }
    const listed = (await this.names).get(name.replace(/\.$/, '').toLowerCase()) ?? [];
    return family ? listed.filter((address) => address.family === family) : listed;
  }
}

/** The file's names; null when it cannot be read. */
async function readHostAddresses(path: string): Promise<HostAddresses | null> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  const names: HostAddresses = new Map();
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    const family = isIP(address);
    if (!family) continue;
    for (const alias of aliases) {
      const name = alias.replace(/\.$/, '').toLowerCase();
      names.set(name, [...(names.get(name) ?? []), { address, family }]);
    }
  }
  return names;
}
