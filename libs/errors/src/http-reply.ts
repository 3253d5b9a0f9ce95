import type { ServerResponse } from 'node:http';

/** What the error filters do to a response, on Express's `Response` and Fastify's reply alike. */
export interface HttpReply {
  header(name: string, value: string): unknown;
  status(code: number): HttpReply;
  send(body: unknown): unknown;
  /** Express only: Fastify's send serializes an object itself. */
  json?(body: unknown): unknown;
  /** Fastify only: the Node response under the reply. */
  raw?: ServerResponse;
  headersSent?: boolean;
  end?(): unknown;
}

export function sendJson(reply: HttpReply, statusCode: number, body: unknown): void {
  const answer = reply.status(statusCode);
  if (answer.json) answer.json(body);
  else answer.send(body);
}

/** Whether the answer has begun, so that only ending it is left. */
export function answerBegun(reply: HttpReply): boolean {
  return Boolean((reply.raw ?? reply).headersSent);
}

export function endAnswer(reply: HttpReply): void {
  (reply.raw ?? (reply as unknown as ServerResponse)).end();
}
