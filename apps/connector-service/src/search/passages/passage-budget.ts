import type { PassageView } from '@app/contracts/views';

/** Passages cut to a budget of characters, and whether any were cut. */
export type WithinBudget = { passages: PassageView[]; truncated: boolean };

/**
 * The passages, best first, with at most `maxChars` characters (code points, as the offsets count them)
 * of text in all: the one that reaches the limit is cut short (at a blank when one lies in its second
 * half), `end` moved with it, and those after it are left out; `truncated` says so.
 */
export function withinChars(passages: PassageView[], maxChars: number): WithinBudget {
  const kept: PassageView[] = [];
  let left = maxChars;
  for (const passage of passages) {
    const chars = [...passage.text];
    if (chars.length <= left) {
      kept.push(passage);
      left -= chars.length;
      continue;
    }
    const text = cut(chars, left);
    if (text) kept.push({ ...passage, text, end: passage.start + [...text].length });
    return { passages: kept, truncated: true };
  }
  return { passages: kept, truncated: false };
}

function cut(chars: string[], length: number): string {
  const head = chars.slice(0, length).join('');
  const blank = head.search(/\s\S*$/);
  return (blank >= head.length / 2 ? head.slice(0, blank) : head).trimEnd();
}
