import type { AxiosResponse } from 'axios';
import type { Readable } from 'node:stream';
import type { Page } from './document-system.adapter';
import { collectAnswer } from './answer-bytes';
import { AnswerUnreadable } from './answer-parser';
import { AnswerShape, ReadAnswer } from './answer-shapes';
import { CallBudget } from './call-budget';
import { ANSWER_PROBLEMS } from './call-failures';
import { DocumentSystemException } from './document-system.exception';
import { drainJson, isSuccess, SessionKit } from './session-support';

/** A session's answers as read by the answer parser, off the event loop, in the tenant's lane and within the budget. */
export class SessionAnswers {
  constructor(
    private readonly kit: SessionKit,
    private readonly tenantId: string,
    private readonly budget?: CallBudget,
  ) {}

  /** A listing page, parsed off the event loop; a page over LISTING_MAX_ITEMS fails the call. */
  async listing<T>(chunks: Uint8Array[], shape: 'workgroups' | 'children'): Promise<Page<T>> {
    const { maxListingItems } = this.kit.limits;
    const answer = await this.read(chunks, shape, maxListingItems);
    if (answer.ok) return answer.value as Page<T>;
    if (answer.problem === 'TooManyItems')
      throw DocumentSystemException.listingTooLong(answer.items ?? 0, maxListingItems);
    throw DocumentSystemException.unavailable(ANSWER_PROBLEMS[answer.problem]);
  }

  /** A session answer's fields, or an error answer's `error`; one that is not JSON tells nothing. */
  async session(res: AxiosResponse<Readable>, signal: AbortSignal): Promise<unknown> {
    if (!isSuccess(res.status)) return drainJson(res.data, signal);
    const chunks = await collectAnswer(res.data, this.kit.limits.maxAnswerBytes, signal);
    const answer = await this.read(chunks, 'session', 0);
    return answer.ok ? answer.value : undefined;
  }

  /** An answer read by the parser; one its process could not read (time, memory) is the document system's failure. */
  private async read(chunks: Uint8Array[], shape: AnswerShape, maxItems: number): Promise<ReadAnswer> {
    try {
      return await this.within(this.kit.parser.read(chunks, shape, maxItems, this.tenantId, this.budget?.signal));
    } catch (error) {
      if (error instanceof AnswerUnreadable) throw DocumentSystemException.unavailable(error.message);
      throw error;
    }
  }

  private within<T>(work: Promise<T>): Promise<T> {
    return this.budget ? this.budget.within(work) : work;
  }
}
