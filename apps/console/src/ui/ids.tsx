const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID as its first and last four characters (`0000…00a1`): demo ids differ only at their end. */
export const shortId = (id: string): string => (UUID.test(id) ? `${id.slice(0, 4)}…${id.slice(-4)}` : id);

/** An id shown short, whole on hover (and to a screen reader). */
export function ShortId({ id, what }: { id: string; what?: string }) {
  const whole = what ? `${what} ${id}` : id;
  return (
    <code className="short-id" title={whole} aria-label={whole}>
      {shortId(id)}
    </code>
  );
}

/** A person: the name the signed-in token carries when it is them, else their id shown short. */
export function Person({ userId, you }: { userId: string; you: { userId: string; displayName: string | null } }) {
  if (userId !== you.userId) return <ShortId id={userId} what="user" />;
  return (
    <span title={`user ${userId}`} data-testid="person-you">
      {you.displayName ?? shortId(userId)} <span className="muted">(you)</span>
    </span>
  );
}

/** A URL that wraps between its parts (after `/`, `.`, `?`, `&`, `=`), never inside a word. */
export function Url({ value }: { value: string }) {
  const parts = value.split(/(?<=[/.?&=#])/);
  return (
    <span className="url">
      {parts.map((part, i) => (
        <span key={i}>
          {part}
          {i < parts.length - 1 ? <wbr /> : null}
        </span>
      ))}
    </span>
  );
}
