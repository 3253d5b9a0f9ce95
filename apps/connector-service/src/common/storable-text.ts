// libs/errors' storableText, again: the parser and extraction processes that use it run, under ts-node, without
// the `@app/*` aliases, and load no library (their imports stay relative).
/** Half of a UTF-16 pair without its other half: no character, and PostgreSQL refuses it in jsonb. */
export const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATES.source}`, 'g');

/** A peer's text as the database takes it: U+0000 and lone surrogates become U+FFFD. Pure, for the parser processes too. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\ufffd');
}
