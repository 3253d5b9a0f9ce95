import { ValidateBy, ValidationArguments } from 'class-validator';

/**
 * Secret values this repository publishes as examples (.env.example, docker-compose.yml, deploy/,
 * README): whoever reads it knows them, so a deployment that kept one is open to anyone.
 */
export const KNOWN_PLACEHOLDERS: readonly string[] = [
  'change-me-to-32-or-more-random-characters',
  'change-me-hex-from-openssl-rand',
  'k1:BASE64_32_BYTES',
  'BASE64_32_BYTES',
  'whsec_BASE64',
];
/** Words that only an unfilled template holds. */
const PLACEHOLDER_WORDS = /change[-_ ]?me|replace[-_ ]?me|placeholder|example|your[-_ ]?secret|BASE64_32_BYTES|…/i;

/** Below this estimate a secret is guessable: 32 random hex characters estimate 97 at the least. */
export const MIN_SECRET_BITS = 80;
/** 32 random bytes estimate 140 at the least; a key of fewer, or repeated, bytes does not come near. */
export const MIN_KEY_BITS = 112;

export const GENERATE_SECRET = 'openssl rand -base64 48';
export const GENERATE_KEY = 'echo "k1:$(openssl rand -base64 32)"';

/**
 * An estimate of the bits in `symbols`: their Shannon entropy times their count. It finds repeats and
 * short alphabets, not the patterns a person types; the placeholder list is for those we published.
 */
export function entropyBits(symbols: ArrayLike<string | number>): number {
  const counts = new Map<string | number, number>();
  for (let i = 0; i < symbols.length; i++) counts.set(symbols[i], (counts.get(symbols[i]) ?? 0) + 1);
  let perSymbol = 0;
  for (const n of counts.values()) perSymbol -= (n / symbols.length) * Math.log2(n / symbols.length);
  return perSymbol * symbols.length;
}

/** Whether `text` is one shorter part said again and again ("passwordpassword…"). */
function repeatsItself(text: string): boolean {
  for (let period = 1; period <= text.length / 2; period++)
    if (text.length % period === 0 && text.slice(0, period).repeat(text.length / period) === text) return true;
  return false;
}

const isPlaceholder = (value: string) => KNOWN_PLACEHOLDERS.includes(value.trim()) || PLACEHOLDER_WORDS.test(value);

/** What is wrong with an HS256 secret, in words for the start-up line; null when nothing is. */
export function secretProblem(value: string): string | null {
  if (isPlaceholder(value)) return 'is a placeholder published in this repository';
  if (repeatsItself(value) || entropyBits([...value]) < MIN_SECRET_BITS)
    return 'is guessable (too few random characters)';
  return null;
}

/** What is wrong with an encryption keyring (`kid:base64[,…]` or one base64 key, as the cipher reads it); null when nothing is. */
export function keyringProblem(spec: string): string | null {
  if (isPlaceholder(spec)) return 'is a placeholder published in this repository';
  const entries = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (!entries.length) return 'is empty';
  const ids = new Set<string>();
  for (const entry of entries) {
    const [kid, b64] = entry.includes(':') ? entry.split(':', 2) : ['k1', entry];
    // The first key encrypts, the last of an id decrypts: a rotation under the same id would lose every new secret.
    if (ids.has(kid))
      return `names key "${kid}" twice (a key without an id is "k1"): give the new key an id of its own`;
    ids.add(kid);
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32 || entropyBits(key) < MIN_KEY_BITS)
      return `has a key ("${kid}") that is not 32 random bytes in base64`;
  }
  return null;
}

/** Standard Webhooks secrets: `whsec_` and base64; svix makes them of 24 random bytes. */
const MIN_SIGNING_KEY_BYTES = 24;
export const GENERATE_SIGNING_SECRET = 'echo "whsec_$(openssl rand -base64 32)"';

/**
 * What is wrong with webhook signing secrets (`whsec_base64`, several separated by spaces while rotating); null
 * when nothing is. None at all signs nothing, which a deployment may choose.
 */
export function signingSecretsProblem(value: string): string | null {
  for (const secret of value.split(/\s+/).filter(Boolean)) {
    if (isPlaceholder(secret)) return 'holds a placeholder published in this repository';
    const b64 = secret.replace(/^whsec_/, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return 'holds a secret that is not whsec_ followed by base64';
    const key = Buffer.from(b64, 'base64');
    if (key.length < MIN_SIGNING_KEY_BYTES || entropyBits(key) < MIN_SECRET_BITS)
      return `holds a secret of fewer than ${MIN_SIGNING_KEY_BYTES} random bytes`;
  }
  return null;
}

const unguessable = (name: string, problem: (value: string) => string | null, generate: string) =>
  ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || problem(value) === null,
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property} ${problem(String(args?.value))}: set a random value of your own (${generate})`,
    },
  });

/** AUTH_JWT_SECRET: not a published placeholder, not guessable. */
export const IsUnguessableSecret = () => unguessable('unguessableSecret', secretProblem, GENERATE_SECRET);

/** ENCRYPTION_KEY: not a published placeholder, each key 32 random bytes. */
export const IsUnguessableKeyring = () => unguessable('unguessableKeyring', keyringProblem, GENERATE_KEY);

/** WEBHOOK_SIGNING_SECRET: no published placeholder, each secret base64 of 24 random bytes or more. */
export const IsUnguessableSigningSecrets = () =>
  unguessable('unguessableSigningSecrets', signingSecretsProblem, GENERATE_SIGNING_SECRET);
