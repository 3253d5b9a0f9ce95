import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { bodyFor } from '@app/errors';

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'REQUEST_HEADERS_TOO_LARGE', 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request took too long to arrive'],
};

/** What Node's HTTP parser refuses (a malformed request line, Content-Length, headers too large). */
export function refuseMalformedRequest(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'BAD_REQUEST', 'The request is malformed'];
  const body = JSON.stringify(bodyFor(status, code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
