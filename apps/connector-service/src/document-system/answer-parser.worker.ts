import { serveRequests } from '../common/serve-requests';
import { AnswerShape, readAnswer } from './answer-shapes';

/** One answer to parse: what `readAnswer` keeps of it comes back. */
export interface ParseRequest {
  chunks: Uint8Array[];
  shape: AnswerShape;
  maxItems: number;
}

/** A parser process (AnswerParser's lanes). */
serveRequests(({ chunks, shape, maxItems }: ParseRequest) =>
  readAnswer(Buffer.concat(chunks).toString('utf8'), shape, maxItems),
);
