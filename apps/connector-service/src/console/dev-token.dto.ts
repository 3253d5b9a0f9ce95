import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

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

  /** The person's name, carried as the token's `name` claim: what the console shows for them. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;
}
