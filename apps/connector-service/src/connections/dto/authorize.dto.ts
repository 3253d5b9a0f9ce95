import { ApiProperty } from '@nestjs/swagger';
import { IsUuidId } from '@app/errors';

export class AuthorizeDto {
  @ApiProperty({ format: 'uuid', description: 'The OAuth provider (connector) to authorize' })
  @IsUuidId()
  providerId: string;
}
