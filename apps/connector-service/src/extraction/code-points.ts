/**
 * Offsets in the text as the API gives them: in code points, as PostgreSQL and Python count characters
 * (JavaScript counts a character outside the Basic Multilingual Plane, an emoji say, as two).
 */
export function codePointOffsets(text: string, offsets: readonly number[]): number[] {
  if (!/[\uD800-\uDBFF]/.test(text)) return [...offsets];
  const order = offsets.map((_, i) => i).sort((a, b) => offsets[a] - offsets[b]);
  const result = new Array<number>(offsets.length);
  let unit = 0;
  let pairs = 0;
  for (const i of order) {
    for (; unit < offsets[i]; unit++) if (isSecondOfPair(text, unit)) pairs++;
    result[i] = offsets[i] - pairs;
  }
  return result;
}

function isSecondOfPair(text: string, unit: number): boolean {
  const code = text.charCodeAt(unit);
  if (code < 0xdc00 || code > 0xdfff || unit === 0) return false;
  const before = text.charCodeAt(unit - 1);
  return before >= 0xd800 && before <= 0xdbff;
}
