import axios from 'axios';
import { createLocalJWKSet, errors, JSONWebKeySet, JWTHeaderParameters, FlattenedJWSInput, KeyLike } from 'jose';
import { guardedAgents, outboundAxiosConfig, OutboundUrlPolicy } from '@app/outbound';

/** The bounds of a key set fetch: a JWKS is a few keys, so anything larger is not one. */
export const KEY_SET_LIMITS = { deadlineMs: 5000, maxBytes: 64 * 1024, maxAgeMs: 10 * 60_000, cooldownMs: 30_000 };

type KeyGetter = (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<KeyLike>;

/**
 * The RS256 keys at AUTH_JWKS_URL, fetched like every outbound call (no redirects, no environment proxy,
 * a wall-clock deadline and a size bound), kept for a while and fetched again, at most once per cooldown,
 * when a token names a key the set does not have. The URL is the operator's, not a tenant's, so private
 * addresses are allowed (an identity provider inside the cluster); https is required by the env's validation.
 */
export class RemoteKeySet {
  private readonly agents = guardedAgents(new OutboundUrlPolicy({ allowInsecure: true, allowPrivate: true }));
  private keys?: { get: KeyGetter; fetchedAt: number };
  private fetching?: Promise<KeyGetter>;

  constructor(private readonly url: string) {}

  /** For jose's jwtVerify: the key a token names. */
  readonly key: KeyGetter = async (header, token) => {
    const fresh = this.keys && Date.now() - this.keys.fetchedAt < KEY_SET_LIMITS.maxAgeMs;
    const get = fresh ? this.keys!.get : await this.fetch();
    try {
      return await get(header, token);
    } catch (error) {
      const cooled = this.keys && Date.now() - this.keys.fetchedAt >= KEY_SET_LIMITS.cooldownMs;
      if (!(error instanceof errors.JWKSNoMatchingKey) || !cooled) throw error;
      return (await this.fetch())(header, token);
    }
  };

  close(): void {
    this.agents.destroy();
  }

  private fetch(): Promise<KeyGetter> {
    this.fetching ??= this.load().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async load(): Promise<KeyGetter> {
    const { data } = await axios.get<JSONWebKeySet>(this.url, {
      ...outboundAxiosConfig(this.agents),
      timeout: KEY_SET_LIMITS.deadlineMs,
      signal: AbortSignal.timeout(KEY_SET_LIMITS.deadlineMs),
      maxContentLength: KEY_SET_LIMITS.maxBytes,
      responseType: 'json',
    });
    const get = createLocalJWKSet(data) as KeyGetter;
    this.keys = { get, fetchedAt: Date.now() };
    return get;
  }
}
