import { ArrayMaxSize, IsArray, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export class DevTokenDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  tenantId: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  userId: string;

  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(/^[\w:.-]{1,100}$/, {
    each: true,
    message: 'each role must be a word such as admin or oauth-connectors:manage',
  })
  roles: string[];
}
