import { DomainException } from '@app/errors';

export enum ApprovalErrorCode {
  NotFound = 'APPROVAL_NOT_FOUND',
  NotPending = 'APPROVAL_NOT_PENDING',
  NotAwaiting = 'APPROVAL_NOT_AWAITING',
  Conflict = 'APPROVAL_CONFLICT',
  CallbackNotFound = 'CALLBACK_NOT_FOUND',
  CallbackTokenInvalid = 'CALLBACK_TOKEN_INVALID',
  DecisionPageNotFound = 'DECISION_PAGE_NOT_FOUND',
  /** A webhook URL refused by the outbound policy, or a decision deadline shorter than allowed. */
  ValidationFailed = 'VALIDATION_FAILED',
}

export class ApprovalException extends DomainException {
  static notFound() {
    return new ApprovalException(404, ApprovalErrorCode.NotFound, 'Approval not found');
  }

  static notPending(status: string) {
    return new ApprovalException(
      409,
      ApprovalErrorCode.NotPending,
      `The approval is no longer pending (${status})`,
      [],
      { status },
    );
  }

  static notAwaiting(status: string) {
    return new ApprovalException(
      409,
      ApprovalErrorCode.NotAwaiting,
      `Only an approval awaiting its decision can be redelivered (${status})`,
      [],
      { status },
    );
  }

  static decisionTimeoutTooShort(min: number) {
    const rule = `decisionTimeoutSeconds must not be less than ${min}`;
    return new ApprovalException(400, ApprovalErrorCode.ValidationFailed, rule, [
      { field: 'decisionTimeoutSeconds', problems: [rule] },
    ]);
  }

  static remindAfterTooShort(min: number) {
    const rule = `webhook.remindAfterSeconds must not be less than ${min}`;
    return new ApprovalException(400, ApprovalErrorCode.ValidationFailed, rule, [
      { field: 'webhook.remindAfterSeconds', problems: [rule] },
    ]);
  }

  static conflict() {
    return new ApprovalException(
      409,
      ApprovalErrorCode.Conflict,
      'An approval for this executionId and stepId exists with a different webhook, agentName or message',
    );
  }

  static callbackNotFound() {
    return new ApprovalException(404, ApprovalErrorCode.CallbackNotFound, 'Unknown callbackId');
  }

  static callbackTokenInvalid() {
    return new ApprovalException(401, ApprovalErrorCode.CallbackTokenInvalid, 'callbackToken does not match');
  }

  /** Another approval's, tampered, signed under a retired key, or pages are off: all look the same. */
  static decisionPageNotFound() {
    return new ApprovalException(404, ApprovalErrorCode.DecisionPageNotFound, 'Decision page not found');
  }

  static webhookUrlRefused(rule: string) {
    return new ApprovalException(400, ApprovalErrorCode.ValidationFailed, rule, [
      { field: 'webhook.url', problems: [rule] },
    ]);
  }
}
