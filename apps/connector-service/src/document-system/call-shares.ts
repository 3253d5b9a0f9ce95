import { finished, Readable } from 'node:stream';

/** Logins that may each have all their calls in flight to one host before any waits for a socket. */
export const LOGINS_AT_FULL_SHARE = 32;

/** A call's deadline (or its request's bound) passed while it waited for its login's share. */
export class ShareWaitAborted extends Error {
  constructor() {
    super('the call waited for its share of document-system calls until its deadline');
  }
}

interface LoginCalls {
  inFlight: number;
  /** Calls waiting for a share, first come first served. */
  waiting: Array<() => void>;
}

/**
 * Document-system calls in flight in this process, by login (a credential's, so one tenant's): each login
 * has at most `perLogin` at once, and its further calls wait in a line of its own, never behind another
 * login's. A call stops waiting when its signal aborts (docs/fair-share.md, "Document-system calls").
 */
export class CallShares {
  private readonly logins = new Map<string, LoginCalls>();

  constructor(readonly perLogin: number) {}

  /**
   * One HTTP exchange of `login` within its share, waited for until `signal` aborts. The share is held until
   * the answer is read or dropped, as its socket is.
   */
  async exchange<R extends { data: Readable }>(login: string, signal: AbortSignal, send: () => Promise<R>): Promise<R> {
    const release = await this.take(login, signal);
    try {
      const res = await send();
      finished(res.data, () => release());
      return res;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Waits for a share of `login`'s calls; the function returned gives it back (calling it again does nothing). */
  async take(login: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new ShareWaitAborted();
    const calls = this.logins.get(login) ?? { inFlight: 0, waiting: [] };
    this.logins.set(login, calls);
    if (calls.inFlight < this.perLogin) calls.inFlight++;
    else await this.turn(login, calls, signal);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.give(login, calls);
    };
  }

  private turn(login: string, calls: LoginCalls, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const start = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        calls.waiting.splice(calls.waiting.indexOf(start), 1);
        this.forgetIfIdle(login, calls);
        reject(new ShareWaitAborted());
      };
      calls.waiting.push(start);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  /** The share goes to the login's next waiting call, if any. */
  private give(login: string, calls: LoginCalls): void {
    const next = calls.waiting.shift();
    if (next) return next();
    calls.inFlight--;
    this.forgetIfIdle(login, calls);
  }

  private forgetIfIdle(login: string, calls: LoginCalls): void {
    if (!calls.inFlight && !calls.waiting.length) this.logins.delete(login);
  }
}
