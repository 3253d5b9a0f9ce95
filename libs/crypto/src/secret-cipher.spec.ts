import { randomBytes } from 'node:crypto';
import { SecretCipher } from './secret-cipher';
import { constantTimeEqual, randomToken, sha256Hex } from './tokens';

const key = () => randomBytes(32).toString('base64');

describe(SecretCipher.name, () => {
  it('round-trips and never stores the plaintext', () => {
    const sut = new SecretCipher(key());
    const stored = sut.encrypt('s3cret-value');
    expect(stored).not.toContain('s3cret');
    expect(stored.startsWith('v1.k1.')).toBe(true);
    expect(sut.decrypt(stored)).toBe('s3cret-value');
  });

  it('uses a fresh IV for every encryption', () => {
    const sut = new SecretCipher(key());
    expect(sut.encrypt('same')).not.toBe(sut.encrypt('same'));
  });

  it('keeps decrypting with an old key after rotation and flags the value for re-encryption', () => {
    const oldKey = key();
    const before = new SecretCipher(`k1:${oldKey}`).encrypt('rotate me');
    const sut = new SecretCipher(`k2:${key()},k1:${oldKey}`);
    expect(sut.decrypt(before)).toBe('rotate me');
    expect(sut.needsRotation(before)).toBe(true);
    expect(sut.needsRotation(sut.encrypt('x'))).toBe(false);
  });

  it('fingerprints a text without showing it, and compares after rotation while the old key is kept', () => {
    const oldKey = key();
    const before = new SecretCipher(`k1:${oldKey}`).fingerprint('{"token":"s3cret"}');
    expect(before).not.toContain('s3cret');
    const sut = new SecretCipher(`k2:${key()},k1:${oldKey}`);
    expect(sut.matchesFingerprint('{"token":"s3cret"}', before)).toBe(true);
    expect(sut.matchesFingerprint('{"token":"other"}', before)).toBe(false);
    expect(new SecretCipher(`k3:${key()}`).matchesFingerprint('{"token":"s3cret"}', before)).toBeNull();
  });

  it('signs a text for one purpose: the signature checks out for that purpose and text only, and after rotation while the old key is kept', () => {
    const oldKey = key();
    const signed = new SecretCipher(`k1:${oldKey}`).sign('decision-page', 'approval-1');
    expect(signed).toMatch(/^k1\.[A-Za-z0-9_-]{43}$/);
    const sut = new SecretCipher(`k2:${key()},k1:${oldKey}`);
    expect(sut.verifySignature('decision-page', 'approval-1', signed)).toBe(true);
    expect(sut.verifySignature('decision-page', 'approval-2', signed)).toBe(false);
    expect(sut.verifySignature('other-purpose', 'approval-1', signed)).toBe(false);
    const at = 10;
    const tampered = `${signed.slice(0, at)}${signed[at] === 'A' ? 'B' : 'A'}${signed.slice(at + 1)}`;
    expect(sut.verifySignature('decision-page', 'approval-1', tampered)).toBe(false);
    const last = signed.at(-1) === 'A' ? 'B' : 'A';
    expect(sut.verifySignature('decision-page', 'approval-1', `${signed.slice(0, -1)}${last}`)).toBe(false);
    expect(sut.verifySignature('decision-page', 'approval-1', `${signed}.x`)).toBe(false);
    expect(sut.verifySignature('decision-page', 'approval-1', '')).toBe(false);
    expect(new SecretCipher(`k1:${key()}`).verifySignature('decision-page', 'approval-1', signed)).toBe(false);
    expect(signed.split('.')[1]).not.toBe(sut.fingerprint('approval-1').split('.')[2]);
  });

  it('rejects tampered ciphertext', () => {
    const sut = new SecretCipher(key());
    const parts = sut.encrypt('payload').split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => sut.decrypt(parts.join('.'))).toThrow();
  });

  it('refuses keys of the wrong size', () => {
    expect(() => new SecretCipher(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});

describe('tokens', () => {
  it('makes 32-byte base64url tokens and compares them exactly', () => {
    const token = randomToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(constantTimeEqual(token, token)).toBe(true);
    expect(constantTimeEqual(token, token.slice(1))).toBe(false);
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
