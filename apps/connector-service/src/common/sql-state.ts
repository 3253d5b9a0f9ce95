/** The PostgreSQL error codes the repositories answer for themselves. */
export const SqlState = {
  UniqueViolation: '23505',
  ForeignKeyViolation: '23503',
} as const;

/** Whether a failed statement failed with `state` (TypeORM keeps the driver's code on the error and its driverError). */
export function failedWith(error: unknown, state: (typeof SqlState)[keyof typeof SqlState]): boolean {
  const failed = error as { code?: string; driverError?: { code?: string } };
  return (failed.code ?? failed.driverError?.code) === state;
}
