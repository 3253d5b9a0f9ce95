/** The largest request body any app reads (the contract's 1 MiB), as Express's parsers and Fastify spell it. */
export const MAX_BODY = '1mb';
export const MAX_BODY_BYTES = 1_048_576;
