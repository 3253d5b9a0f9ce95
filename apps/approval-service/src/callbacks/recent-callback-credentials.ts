/** What a callback's token is checked against. It never changes once the approval exists. */
export interface CallbackCredential {
  id: string;
  callbackTokenHash: string;
}

/**
 * The credentials of the approvals this process created lately, so that their callbacks skip a database
 * read. Bounded (the oldest go first); a miss reads the database, so a callback that reaches another
 * process, or comes late, is checked the same way. One per process (CallbacksModule provides it).
 */
export class RecentCallbackCredentials {
  private readonly byCallbackId = new Map<string, CallbackCredential>();

  constructor(private readonly max = 10_000) {}

  remember(callbackId: string, credential: CallbackCredential): void {
    this.byCallbackId.set(callbackId, credential);
    if (this.byCallbackId.size > this.max) this.byCallbackId.delete(this.byCallbackId.keys().next().value!);
  }

  get(callbackId: string): CallbackCredential | undefined {
    return this.byCallbackId.get(callbackId);
  }

  /** After the decision: later callbacks are replays or conflicts, answered from the database. */
  forget(callbackId: string): void {
    this.byCallbackId.delete(callbackId);
  }
}
