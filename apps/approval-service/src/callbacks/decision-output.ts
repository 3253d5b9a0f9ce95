import { ValidateBy } from 'class-validator';

/** The most a callback's `output` may weigh, as JSON (UTF-8). */
export const MAX_OUTPUT_BYTES = 64 * 1024;

/** A JSON object (not an array, a string or a number) of at most MAX_OUTPUT_BYTES once serialized. */
export const IsDecisionOutput = () =>
  ValidateBy({
    name: 'isDecisionOutput',
    validator: {
      validate: (value: unknown) => outputProblem(value) === null,
      defaultMessage: (args) => outputProblem(args?.value) ?? 'output must be a JSON object',
    },
  });

function outputProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'output must be a JSON object';
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  return bytes > MAX_OUTPUT_BYTES
    ? `output must be at most ${MAX_OUTPUT_BYTES} bytes (64 KiB) as JSON; it is ${bytes} bytes`
    : null;
}
