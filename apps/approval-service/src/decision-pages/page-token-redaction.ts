/** Rounds of percent-decoding: a proxy or a prober may encode a path more than once. */
const DECODE_ROUNDS = 4;
const PERCENT_ESCAPE = /%([0-9a-f]{2})/gi;
/** After the page's segment, whatever follows is (part of) a token: only its approval id is kept. */
const AFTER_PAGE_SEGMENT = /(\/decision-pages\/)([0-9a-f-]{0,36}).*$/is;
/** A token wherever it stands (`{approvalId}.{keyId}.{mac}`): the rest of the path goes with it. */
const TOKEN_ANYWHERE = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\..*$/is;

/**
 * A request path as it may be logged: a decision page's token is the credential to decide, so only its
 * approval id is kept. The path is matched as a router could read it (percent-decoded, in any case, with
 * `//`, `/./` and `\` collapsed); one that carries a token is logged in that form, any other as it came.
 */
export function withoutPageToken(path: string): string {
  const plain = normalised(path);
  const redacted = plain.replace(AFTER_PAGE_SEGMENT, '$1$2.[redacted]').replace(TOKEN_ANYWHERE, '$1.[redacted]');
  return redacted === plain ? path : redacted;
}

function normalised(path: string): string {
  let decoded = path;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const next = decoded.replace(PERCENT_ESCAPE, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  const segments = decoded.split(/[/\\]+/).filter((segment) => segment && segment !== '.' && segment !== '..');
  return `/${segments.join('/')}`;
}
