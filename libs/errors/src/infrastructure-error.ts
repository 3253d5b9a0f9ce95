const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * SQLSTATEs that say the database cannot serve now, not that the statement is wrong: connection
 * exceptions (08), insufficient resources (53), shutdown or start-up (57P01–57P03), and
 * serialization or deadlock failures, which succeed when run again.
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[123]$|40001$|40P01$)/;

/** What the pg driver and ioredis throw, without a code, when a connection goes away. */
const TRANSIENT_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|is not queryable|Connection is closed|the database system is (starting up|shutting down|in recovery mode)/i;

/**
 * Whether an error comes from the infrastructure (PostgreSQL or Redis unreachable, restarting or
 * overloaded) rather than from the work itself: such work is held and run again, never failed.
 */
export function isInfrastructureError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, message, name } = current as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGE.test(message)) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    const { errors } = current as { errors?: unknown };
    if (Array.isArray(errors) && errors.length && errors.every(isInfrastructureError)) return true;
    current =
      (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Deadlock or serialization failure: the statement lost a race with another and succeeds when run again. */
const CONFLICT_SQLSTATE = new Set(['40001', '40P01']);

/** Whether an error is a lost race between statements (run it again), not a store that is away. */
export function isRetryableConflict(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && CONFLICT_SQLSTATE.has(code)) return true;
    current =
      (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}
