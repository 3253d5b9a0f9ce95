import { finished, Readable } from 'node:stream';

/** Tenants that may each have all their calls in flight to one host before any waits for a socket. */
export const TENANTS_AT_FULL_SHARE = 32;

/** A call's deadline (or its request's bound) passed while it waited for its tenant's share. */
export class ShareWaitAborted extends Error {
  constructor() {
    super('the call waited for its share of document-system calls until its deadline');
  }
}

interface TenantCalls {
  inFlight: number;
  /** Calls waiting for a share, first come first served. */
  waiting: Array<() => void>;
}

/**
 * Document-system calls in flight in this process, by tenant (over all its logins and instance URLs): each
 * tenant has at most `perTenant` at once, and its further calls wait in a line of its own, never behind
 * another tenant's. A call stops waiting when its signal aborts (docs/fair-share.md, "Document-system calls").
 */
export class CallShares {
  private readonly tenants = new Map<string, TenantCalls>();

  constructor(readonly perTenant: number) {}

  /**
   * One HTTP exchange of `tenant` within its share, waited for until `signal` aborts. The share is held until
   * the answer is read or dropped, as its socket is.
   */
  async exchange<R extends { data: Readable }>(
    tenant: string,
    signal: AbortSignal,
    send: () => Promise<R>,
  ): Promise<R> {
    const release = await this.take(tenant, signal);
    try {
      const res = await send();
      finished(res.data, () => release());
      return res;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Waits for a share of `tenant`'s calls; the function returned gives it back (calling it again does nothing). */
  async take(tenant: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new ShareWaitAborted();
    const calls = this.tenants.get(tenant) ?? { inFlight: 0, waiting: [] };
    this.tenants.set(tenant, calls);
    if (calls.inFlight < this.perTenant) calls.inFlight++;
    else await this.turn(tenant, calls, signal);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.give(tenant, calls);
    };
  }

  private turn(tenant: string, calls: TenantCalls, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const start = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        calls.waiting.splice(calls.waiting.indexOf(start), 1);
        this.forgetIfIdle(tenant, calls);
        reject(new ShareWaitAborted());
      };
      calls.waiting.push(start);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  /** The share goes to the tenant's next waiting call, if any. */
  private give(tenant: string, calls: TenantCalls): void {
    const next = calls.waiting.shift();
    if (next) return next();
    calls.inFlight--;
    this.forgetIfIdle(tenant, calls);
  }

  private forgetIfIdle(tenant: string, calls: TenantCalls): void {
    if (!calls.inFlight && !calls.waiting.length) this.tenants.delete(tenant);
  }
}
