import { createHash, randomBytes } from 'node:crypto';

/** A random, URL-safe value with `bytes` bytes of entropy (state, nonce, PKCE verifier: RFC 7636 §4.1). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** RFC 7636 §4.2: code_challenge = BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** States and nonces are kept only as hashes. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
