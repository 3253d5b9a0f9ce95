/** Each id once, at its first place in `items`: a folder listed twice is taken where it was listed first. */
export function firstOfEach<T>(items: T[], idOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = idOf(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
