/**
 * Characters a browser draws as nothing that change what the page shows: the bidirectional controls
 * (Trojan Source: "\u202E0001" is drawn as "1000"), zero-width spaces and word joiners, the byte order mark, and
 * the tag characters (text no one sees that a model still reads). Not the joiners that scripts and emoji
 * need (U+200C, U+200D): they hide and reverse nothing.
 */
const HIDDEN_CHARACTER = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/u;
const EVERY_HIDDEN_CHARACTER = new RegExp(HIDDEN_CHARACTER.source, 'gu');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Whether a value holds a character the page shows by its code. */
export function hasHiddenCharacters(...texts: string[]): boolean {
  return texts.some((text) => HIDDEN_CHARACTER.test(text));
}

/** Text for a place without markup (the title): each hidden character as its code, `[U+202E]`. */
export function visibleText(text: string): string {
  return text.replace(EVERY_HIDDEN_CHARACTER, codeOf);
}

/** A request's value in the page: HTML-escaped, each hidden character as its code in a marked box. */
export function visibleHtml(text: string): string {
  return escapeHtml(text).replace(EVERY_HIDDEN_CHARACTER, (c) => `<span class="hidden-char">${codeOf(c)}</span>`);
}

const codeOf = (c: string) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
