import type { LookupAddress } from 'node:dns';
import { lookup as systemLookup, promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { HostsFile } from './hosts-file';

export type AddressFamily = 0 | 4 | 6;

/** How long resolving one name may take, every try together; then it fails as a temporary failure (EAI_AGAIN). */
const RESOLVE_DEADLINE_MS = 5000;
/** c-ares' first try waits 1.5 s, its second twice that: both end within the deadline. */
const RESOLVER_OPTIONS = { timeout: 1500, tries: 2 };
/**
 * getaddrinfo lookups in flight at once. Each holds a thread of libuv's pool until its resolver gives up
 * (libuv lends lookups at most 2 of its 4 threads, shared by every lookup of the process: the database's too).
 */
const SYSTEM_LOOKUPS_AT_ONCE = 1;
/** c-ares codes that mean "no such name" (ENOTFOUND, as getaddrinfo reports it); the rest are temporary. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'ENONAME']);

/**
 * Resolves `hostname` to every address of `family` (0: both) without holding a thread of libuv's pool for a
 * DNS server's time, so a tenant whose names resolve slowly or never delays no one else: names /etc/hosts lists
 * are answered from it, other names with a dot are asked of the DNS servers by c-ares, on the event loop.
 * getaddrinfo keeps what only it does (search domains of single-label names, localhost when the file lacks it;
 * with `searchDomains`, a dotted name DNS does not know), one lookup at a time.
 */
export async function resolveName(
  hostname: string,
  family: AddressFamily,
  { searchDomains = false }: { searchDomains?: boolean } = {},
): Promise<LookupAddress[]> {
  const literal = isIP(hostname);
  if (literal) return [{ address: hostname, family: literal }];
  const listed = await hostsFile.addressesOf(hostname, family);
  if (listed.length) return listed;
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (!name.includes('.') || name === 'localhost' || name.endsWith('.localhost'))
    return lookupLocally(hostname, family);
  if (!searchDomains || hostname.endsWith('.')) return resolveByDns(hostname, family);
  // A dotted name only search domains complete (`receiver.namespace` in a cluster) is an internal one: where
  // internal addresses are allowed, getaddrinfo gets to try it once DNS has no such name.
  return resolveByDns(hostname, family).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOTFOUND') throw error;
    return lookupLocally(hostname, family);
  });
}

/** The error a failed lookup is reported with: the code getaddrinfo would give, so callers judge it as before. */
function lookupError(code: 'ENOTFOUND' | 'EAI_AGAIN', hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`lookup ${code} ${hostname}`), { code, syscall: 'lookup', hostname });
}

let resolver: dns.Resolver | undefined;

async function resolveByDns(hostname: string, family: AddressFamily): Promise<LookupAddress[]> {
  resolver ??= new dns.Resolver(RESOLVER_OPTIONS);
  const asked = [
    family !== 6 && withinDeadline(resolver.resolve4(hostname), hostname).then((a) => addresses(a, 4)),
    family !== 4 && withinDeadline(resolver.resolve6(hostname), hostname).then((a) => addresses(a, 6)),
  ].filter((query): query is Promise<LookupAddress[]> => query !== false);
  const answers = await Promise.allSettled(asked);
  const found = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  if (found.length) return found;
  const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as Error] : []));
  const noSuchName = failures.every((failure) => NO_SUCH_NAME.has((failure as NodeJS.ErrnoException).code ?? ''));
  throw lookupError(noSuchName ? 'ENOTFOUND' : 'EAI_AGAIN', hostname);
}

const addresses = (found: string[], family: 4 | 6): LookupAddress[] => found.map((address) => ({ address, family }));

function withinDeadline<T>(query: Promise<T>, hostname: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(lookupError('EAI_AGAIN', hostname)), RESOLVE_DEADLINE_MS).unref();
  });
  return Promise.race([query, late]).finally(() => clearTimeout(timer));
}

/** getaddrinfo, at most SYSTEM_LOOKUPS_AT_ONCE at a time; a caller waiting longer than the deadline gives up. */
function lookupLocally(hostname: string, family: AddressFamily): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | null, found?: LookupAddress[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(found!);
    };
    const timer = setTimeout(() => settle(lookupError('EAI_AGAIN', hostname)), RESOLVE_DEADLINE_MS).unref();
    systemTurns.take((done) => {
      if (settled) return done();
      try {
        systemLookup(hostname, { family, all: true }, (error, found) => {
          done();
          settle(error, found);
        });
      } catch (error) {
        done();
        settle(error as Error);
      }
    });
  });
}

/** Runs work one slot at a time; a slot is free again only when its work says `done`. */
class Turns {
  private readonly waiting: Array<(done: () => void) => void> = [];
  private free: number;

  constructor(slots: number) {
    this.free = slots;
  }

  take(work: (done: () => void) => void): void {
    if (this.free === 0) return void this.waiting.push(work);
    this.free--;
    work(() => this.pass());
  }

  private pass(): void {
    const next = this.waiting.shift();
    // A turn given up (its caller's deadline passed) passes on at once: a microtask each, not one deep stack.
    if (next) queueMicrotask(() => next(() => this.pass()));
    else this.free++;
  }
}

const systemTurns = new Turns(SYSTEM_LOOKUPS_AT_ONCE);

const hostsFile = new HostsFile();
