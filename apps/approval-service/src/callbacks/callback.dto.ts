import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import type { ApprovalStatus } from '@app/contracts/views';
import { FreeForm } from '@app/errors';
import { IsDecisionOutput } from './decision-output';

const CALLBACK_DECISIONS = ['Approved', 'Denied'] as const satisfies readonly ApprovalStatus[];

/**
 * No length bound on the credentials (the 1 MiB body bounds them): the contract answers an unknown callbackId with
 * 404 and a token that does not match with 401, however long, and keeps 400 for a missing field or a wrong status.
 */
export class ApprovalCallbackDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  callbackId: string;

  @ApiProperty({ writeOnly: true })
  @IsString()
  @IsNotEmpty()
  callbackToken: string;

  @ApiProperty({ enum: CALLBACK_DECISIONS, description: 'Exactly Approved or Denied (case-sensitive)' })
  @IsIn(CALLBACK_DECISIONS, { message: 'status must be exactly "Approved" or "Denied"' })
  status: (typeof CALLBACK_DECISIONS)[number];

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  comment?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'Who decided (kept in the log, the approval and the decision event)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  decidedBy?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Data handed back to the agent with the decision (a JSON object, at most 64 KiB as JSON): kept with the ' +
      'approval and carried in the decision event',
  })
  @IsOptional()
  @FreeForm()
  @IsDecisionOutput()
  output?: Record<string, unknown>;
}
