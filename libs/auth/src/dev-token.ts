import { SignJWT } from 'jose';

/** Signs an HS256 platform token (development tools and tests); it always expires. */
export async function signPlatformToken(
  secret: string,
  claims: { userId: string; tenantId: string; roles?: string[] },
  expiresIn: string | number = '12h',
  audience: { issuer?: string; audience?: string } = {},
): Promise<string> {
  const jwt = new SignJWT({ tenant: claims.tenantId, roles: claims.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(expiresIn);
  if (audience.issuer) jwt.setIssuer(audience.issuer);
  if (audience.audience) jwt.setAudience(audience.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
