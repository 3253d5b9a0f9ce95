interface HeldSession {
  token: string;
  expiresAt: number;
  tenant: string;
}

/**
 * Session tokens by login (a hash of instance URL, username and password), shared by every session object of a
 * process so syncs reuse one session. When it is full, the tenant holding the most sessions gives up its least
 * recently used one (the tenant adding one, on a tie): a tenant opening many logins evicts its own sessions,
 * never those of a tenant holding fewer, whose next call would cost a login (docs/fair-share.md).
 */
export class SessionTokenCache {
  private readonly entries = new Map<string, HeldSession>();
  /** Each tenant's logins, least recently used first. */
  private readonly byTenant = new Map<string, Set<string>>();

  constructor(private readonly capacity: number) {}

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.drop(key);
      return undefined;
    }
    this.hold(entry.tenant, key);
    return entry.token;
  }

  /** Keeps `tenant`'s session for the login `key`. */
  set(tenant: string, key: string, token: string, expiresInSeconds: number): void {
    this.drop(key);
    if (this.entries.size >= this.capacity) this.evictFor(tenant);
    // Renew a little early so a session does not expire between the check and the call.
    this.entries.set(key, { token, expiresAt: Date.now() + Math.max(0, expiresInSeconds - 30) * 1000, tenant });
    this.hold(tenant, key);
  }

  forget(key: string, token: string): void {
    if (this.entries.get(key)?.token === token) this.drop(key);
  }

  private evictFor(tenant: string): void {
    let victim = this.byTenant.get(tenant);
    for (const keys of this.byTenant.values()) if (keys.size > (victim?.size ?? 0)) victim = keys;
    const oldest = victim?.values().next().value;
    if (oldest !== undefined) this.drop(oldest);
  }

  /** Marks the login most recently used of its tenant's. */
  private hold(tenant: string, key: string): void {
    const keys = this.byTenant.get(tenant) ?? new Set<string>();
    keys.delete(key);
    keys.add(key);
    this.byTenant.set(tenant, keys);
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.byTenant.get(entry.tenant)!;
    keys.delete(key);
    if (!keys.size) this.byTenant.delete(entry.tenant);
  }
}
