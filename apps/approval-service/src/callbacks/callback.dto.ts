import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class ApprovalCallbackDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  callbackId: string;

  @ApiProperty({ writeOnly: true })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  callbackToken: string;

  @ApiProperty({ enum: ['Approved', 'Denied'], description: 'Exactly Approved or Denied (case-sensitive)' })
  @IsIn(['Approved', 'Denied'], { message: 'status must be exactly "Approved" or "Denied"' })
  status: 'Approved' | 'Denied';

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
}
