import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { APPROVAL_STATUSES, ApprovalStatus } from './approval-state';

export class ListApprovalsQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  executionId?: string;

  @IsOptional()
  @IsIn(APPROVAL_STATUSES)
  status?: ApprovalStatus;
}
