/** JSON text re-indented for a person: its first `maxChars` characters and how many the whole has. */
export interface PrettyJson {
  text: string;
  length: number;
}

const INDENT = '  ';

/**
 * Re-indents valid JSON text (PostgreSQL's `json`, as the runtime sent it) by two spaces a level without
 * parsing it: keys keep their order, numbers and string escapes stay as written. Only the first `maxChars`
 * characters are built (never half of a surrogate pair); the rest are only counted.
 */
export function prettyJson(json: string, maxChars: number): PrettyJson {
  const out = new CappedText(maxChars);
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      const end = stringEnd(json, i);
      out.add(json.slice(i, end));
      i = end - 1;
    } else if (c === '{' || c === '[') {
      const next = nextToken(json, i + 1);
      if (json[next] === (c === '{' ? '}' : ']')) {
        out.add(c + json[next]);
        i = next;
      } else out.add(`${c}\n${INDENT.repeat(++depth)}`);
    } else if (c === '}' || c === ']') out.add(`\n${INDENT.repeat(--depth)}${c}`);
    else if (c === ',') out.add(`,\n${INDENT.repeat(depth)}`);
    else if (c === ':') out.add(': ');
    else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') out.add(c);
  }
  return { text: out.text(), length: out.length };
}

/** The index just past the string literal that starts at `start`. */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
  return i + 1;
}

function nextToken(json: string, from: number): number {
  let i = from;
  while (i < json.length && /\s/.test(json[i])) i++;
  return i;
}

class CappedText {
  private readonly parts: string[] = [];
  private kept = 0;
  length = 0;

  constructor(private readonly maxChars: number) {}

  add(part: string): void {
    this.length += part.length;
    if (this.kept >= this.maxChars) return;
    let taken = part.slice(0, this.maxChars - this.kept);
    if (taken.length < part.length && isHighSurrogate(taken.charCodeAt(taken.length - 1))) taken = taken.slice(0, -1);
    this.parts.push(taken);
    this.kept += taken.length === part.length ? taken.length : this.maxChars; // cut: nothing more is kept
  }

  text(): string {
    return this.parts.join('');
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
