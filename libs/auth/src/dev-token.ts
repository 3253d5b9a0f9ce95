import { SignJWT } from 'jose';

/** Signs an HS256 platform token (development tools and tests); it always expires. */
export async function signPlatformToken(
  secret: string,
  claims: { userId: string; tenantId: string; roles?: string[]; name?: string; email?: string },
  expiresIn: string | number = '12h',
  audience: { issuer?: string; audience?: string } = {},
): Promise<string> {
  const person = { ...(claims.name ? { name: claims.name } : {}), ...(claims.email ? { email: claims.email } : {}) };
  const jwt = new SignJWT({ tenant: claims.tenantId, roles: claims.roles ?? [], ...person })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(expiresIn);
  if (audience.issuer) jwt.setIssuer(audience.issuer);
  if (audience.audience) jwt.setAudience(audience.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
