/** Paths pino censors in every log line: credentials in headers and secret-bearing fields anywhere. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-session-token"]',
  'res.headers["set-cookie"]',
  ...[
    'password',
    'clientSecret',
    'client_secret',
    'token',
    'accessToken',
    'refreshToken',
    'callbackToken',
    'apiKey',
    'secret',
    'headerValue',
    'sessionToken',
    'code_verifier',
    'authorization',
  ].flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];
