/**
 * The search service marks hits with <mark>…</mark> inside otherwise raw document text. Split on those
 * two markers only and render every piece as text, so nothing in a document can become markup.
 */
export function Snippet({ text }: { text: string }) {
  const parts = text.split(/(<mark>|<\/mark>)/);
  let marked = false;
  const out: Array<{ text: string; marked: boolean }> = [];
  for (const part of parts) {
    if (part === '<mark>') marked = true;
    else if (part === '</mark>') marked = false;
    else if (part) out.push({ text: part, marked });
  }
  return (
    <p className="snippet">
      {out.map((piece, i) => (piece.marked ? <mark key={i}>{piece.text}</mark> : <span key={i}>{piece.text}</span>))}
    </p>
  );
}
