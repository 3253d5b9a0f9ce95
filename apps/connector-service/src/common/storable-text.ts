/** U+0000, or half of a UTF-16 pair without its other half: PostgreSQL refuses both in jsonb (and U+0000 in text). */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A peer's text as the database takes it: what it refuses becomes U+FFFD. Pure, for the parser processes too. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\ufffd');
}
