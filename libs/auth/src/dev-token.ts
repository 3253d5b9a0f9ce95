import { SignJWT } from 'jose';

/** Signs an HS256 platform token (development tools and tests). */
export async function signPlatformToken(
  secret: string,
  claims: { userId: string; tenantId: string; roles?: string[] },
  expiresIn: string | number = '12h',
): Promise<string> {
  return new SignJWT({ tenant: claims.tenantId, roles: claims.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}
