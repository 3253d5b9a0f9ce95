import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class AuthorizeDto {
  @ApiProperty({ format: 'uuid', description: 'The OAuth provider (connector) to authorize' })
  @IsUUID()
  providerId: string;
}
