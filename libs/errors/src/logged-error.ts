/** An error's own fields that say what failed, never with what: codes and names a driver or a client gives. */
const KEPT_FIELDS = ['code', 'errno', 'routine', 'table', 'constraint', 'status', 'statusCode'] as const;
const MAX_TEXT = 500;
const MAX_CAUSES = 3;

type Loggable = Record<string, unknown>;

/**
 * An error as the log may hold it: its class, message, stack, codes, and a failed statement's text, but none of
 * the values it carries. A statement's parameters (a request's step input, a webhook URL whose path is the
 * receiver's credential), a driver's `detail` (the key's value), and an HTTP client's request (its headers and
 * body: Authorization, client secrets) would otherwise go into the log whole, as pino writes an error's fields.
 */
export function loggedError(error: unknown, depth = 0): Loggable {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error).slice(0, MAX_TEXT) };
  const fields = error as unknown as Record<string, unknown>;
  const driver = (fields.driverError ?? {}) as Record<string, unknown>;
  // A data exception (SQLSTATE class 22) quotes the value it refused in its message, and the stack repeats it.
  const code = fields.code ?? driver.code;
  const told = (text: string | undefined) =>
    typeof code === 'string' && code.startsWith('22') ? text?.replace(/"[^"]*"/g, '"…"') : text;
  const logged: Loggable = {
    type: error.constructor?.name || error.name,
    message: told(error.message),
    stack: told(error.stack),
  };
  for (const field of KEPT_FIELDS) {
    const value = fields[field] ?? driver[field];
    if (typeof value === 'string' || typeof value === 'number') logged[field] = value;
  }
  // A parameterised statement's text holds no value; its parameters are left out.
  if (typeof fields.query === 'string') logged.query = fields.query;
  if (error.cause !== undefined && depth < MAX_CAUSES) logged.cause = loggedError(error.cause, depth + 1);
  return logged;
}
