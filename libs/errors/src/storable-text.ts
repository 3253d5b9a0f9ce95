/** Half of a UTF-16 pair without its other half: no character, and PostgreSQL refuses it in JSON. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`, 'g');

/** A peer's text as the database takes it: U+0000 and lone surrogates (refused in jsonb) become U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\ufffd');
}
