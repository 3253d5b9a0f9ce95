import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/crypto';
import { ApprovalEnv } from '../approval-env';

export const DECISION_PAGE_PATH = '/v1/decision-pages';

/** What the signature is for: a key derived for this purpose signs nothing else. */
const PURPOSE = 'decision-page-v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LONGEST_TOKEN = 200;

/**
 * The decision page's address of an approval: `{PUBLIC_BASE_URL}/v1/decision-pages/{approvalId}.{keyId}.{mac}`,
 * the MAC (HMAC-SHA256) under a key derived from ENCRYPTION_KEY for this purpose alone. Nothing is stored:
 * any process can make and check it, it tells nothing of the callback token, and it is no callback token
 * (those are random and only their hash is kept). It stays valid while its key is in ENCRYPTION_KEY; the
 * page itself answers only while the approval is open.
 */
@Injectable()
export class DecisionPageLinks {
  private readonly base: string | null;

  constructor(
    env: ApprovalEnv,
    private readonly cipher: SecretCipher,
  ) {
    this.base = env.DECISION_PAGE ? `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}${DECISION_PAGE_PATH}` : null;
  }

  get enabled(): boolean {
    return this.base !== null;
  }

  /** Null when the service runs with DECISION_PAGE=false. */
  url(approvalId: string): string | null {
    return this.base && `${this.base}/${approvalId}.${this.cipher.sign(PURPOSE, approvalId)}`;
  }

  /** The approval a token was made for; null for anything else (tampered, made under a retired key, pages off). */
  approvalOf(token: string): string | null {
    if (!this.base || token.length > LONGEST_TOKEN) return null;
    const dot = token.indexOf('.');
    const approvalId = token.slice(0, dot);
    return dot > 0 && UUID.test(approvalId) && this.cipher.verifySignature(PURPOSE, approvalId, token.slice(dot + 1))
      ? approvalId
      : null;
  }
}
