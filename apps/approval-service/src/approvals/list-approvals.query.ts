import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { FromDecimalDigits } from '@app/errors';
import { IsApprovalCursor } from './approval-cursor';
import { APPROVAL_STATUSES, ApprovalStatus } from '../approval-store/approval-state';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export class ListApprovalsQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  executionId?: string;

  @IsOptional()
  @IsIn(APPROVAL_STATUSES)
  status?: ApprovalStatus;

  /** Approvals per page, newest first. */
  @IsOptional()
  @FromDecimalDigits()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;

  /** The X-Next-Cursor of the previous page. */
  @IsOptional()
  @IsApprovalCursor()
  cursor?: string;
}
