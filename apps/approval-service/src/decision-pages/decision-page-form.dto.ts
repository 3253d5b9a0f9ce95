import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

const DECISIONS = ['Approved', 'Denied'] as const;

/** A form's empty field is no value: the comment is absent, the name falls back to the default. */
const blankIsAbsent = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && !value.trim() ? undefined : value));

/** Browsers send a textarea's line breaks as CR LF but count each as one character against its maxlength. */
const lineBreaksAsLf = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n') : value));

/** The decision page's form (application/x-www-form-urlencoded): the callback's rules, without its credentials. */
export class DecisionPageForm {
  @ApiProperty({ enum: DECISIONS, description: 'Exactly Approved or Denied (the button pressed)' })
  @IsIn(DECISIONS, { message: 'status must be exactly "Approved" or "Denied"' })
  status: (typeof DECISIONS)[number];

  @ApiPropertyOptional({ maxLength: 2000 })
  @blankIsAbsent()
  @lineBreaksAsLf()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  comment?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'Who decided; "decision-page" when left empty' })
  @blankIsAbsent()
  @IsOptional()
  @IsString()
  @MaxLength(200)
  decidedBy?: string;
}
