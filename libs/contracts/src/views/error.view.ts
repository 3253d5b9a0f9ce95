/** Every error of both services has this body (CONTRACT.md); some codes add fields of their own. */
export interface ErrorView {
  statusCode: number;
  error: string;
  /** A stable UPPER_SNAKE identifier. */
  code: string;
  message: string;
  /** Field problems for validation errors. */
  details: unknown[];
  [extra: string]: unknown;
}
