import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const FORMAT = 'v1';

export interface Keyring {
  currentKeyId: string;
  keys: Map<string, Buffer>;
}

/** `kid:base64[,kid:base64…]` (first is current) or a single base64 key with id `k1`. */
export function parseKeyring(spec: string): Keyring {
  const entries = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const keys = new Map<string, Buffer>();
  for (const entry of entries) {
    const [kid, b64] = entry.includes(':') ? entry.split(':', 2) : ['k1', entry];
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new Error(`ENCRYPTION_KEY: key "${kid}" must be 32 bytes, base64-encoded`);
    if (!/^[A-Za-z0-9_-]+$/.test(kid)) throw new Error(`ENCRYPTION_KEY: key id "${kid}" must be alphanumeric`);
    if (keys.has(kid)) throw new Error(`ENCRYPTION_KEY: key id "${kid}" is named twice`);
    keys.set(kid, key);
  }
  if (keys.size === 0) throw new Error('ENCRYPTION_KEY is empty');
  return { currentKeyId: entries[0].includes(':') ? entries[0].split(':')[0] : 'k1', keys };
}

/**
 * AES-256-GCM for every secret column. The stored form is `v1.<keyId>.<iv>.<tag>.<ciphertext>`
 * (base64url), so the key id travels beside the ciphertext and old keys keep decrypting after rotation.
 */
export class SecretCipher {
  private readonly keyring: Keyring;

  constructor(keySpec: string) {
    this.keyring = parseKeyring(keySpec);
  }

  encrypt(plaintext: string): string {
    const { currentKeyId, keys } = this.keyring;
    const iv = randomBytes(12);
    const cipher = createCipheriv(ALGORITHM, keys.get(currentKeyId)!, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return [FORMAT, currentKeyId, ...parts].join('.');
  }

  decrypt(stored: string): string {
    const [format, keyId, iv, tag, ciphertext] = stored.split('.');
    if (format !== FORMAT || ciphertext === undefined) throw new Error('Not an encrypted secret');
    const key = this.keyring.keys.get(keyId);
    if (!key) throw new Error(`Secret was encrypted with unknown key id "${keyId}"`);
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * A keyed fingerprint (HMAC-SHA256 under a key derived from the current encryption key) of a text
   * that may hold secrets: two texts compare equal without either being stored readably.
   * Stored as `f1.<keyId>.<mac>`, so it stays comparable after rotation while the old key is kept.
   */
  fingerprint(text: string): string {
    const { currentKeyId, keys } = this.keyring;
    return ['f1', currentKeyId, mac(keys.get(currentKeyId)!, FINGERPRINT, text)].join('.');
  }

  /** Whether `text` has this fingerprint; null when its key is no longer in the keyring (cannot tell). */
  matchesFingerprint(text: string, stored: string): boolean | null {
    const [format, keyId, stamp] = stored.split('.');
    const key = this.keyring.keys.get(keyId);
    if (format !== 'f1' || !stamp || !key) return null;
    return sameMac(stamp, key, FINGERPRINT, text);
  }

  /**
   * A signature of `text` for one `purpose` (HMAC-SHA256 under a key derived from the current encryption
   * key and the purpose, so a signature made for one purpose proves nothing for another): `<keyId>.<mac>`,
   * URL-safe. It checks out while its key stays in the keyring.
   */
  sign(purpose: string, text: string): string {
    const { currentKeyId, keys } = this.keyring;
    return [currentKeyId, mac(keys.get(currentKeyId)!, `sign:${purpose}`, text)].join('.');
  }

  /** Whether `signature` is what sign(purpose, text) made, under a key still in the keyring (constant time). */
  verifySignature(purpose: string, text: string, signature: string): boolean {
    const [keyId, signed, extra] = signature.split('.');
    const key = this.keyring.keys.get(keyId);
    return extra === undefined && !!signed && !!key && sameMac(signed, key, `sign:${purpose}`, text);
  }

  /** True when the value was encrypted with an older key and should be re-encrypted. */
  needsRotation(stored: string): boolean {
    return stored.split('.')[1] !== this.keyring.currentKeyId;
  }
}

const FINGERPRINT = 'fingerprint-v1';

/** HMAC-SHA256 of `text` under a key derived from `key` for one purpose, base64url. */
function mac(key: Buffer, purpose: string, text: string): string {
  const derived = createHmac('sha256', key).update(purpose).digest();
  return createHmac('sha256', derived).update(text, 'utf8').digest('base64url');
}

/** Compared as written, not as decoded: base64url has several spellings of the last bits, a tampered one must not pass. */
function sameMac(given: string, key: Buffer, purpose: string, text: string): boolean {
  const expected = Buffer.from(mac(key, purpose, text));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
