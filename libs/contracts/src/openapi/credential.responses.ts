import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CREDENTIAL_SCOPES,
  CredentialLastValidationView,
  CredentialScope,
  CredentialValidationView,
  CredentialView,
} from '../views/credential.view';

export class CredentialLastValidationResponse implements CredentialLastValidationView {
  @ApiProperty()
  valid: boolean;

  @ApiProperty({ format: 'date-time' })
  checkedAt: string;

  @ApiProperty({ type: String, nullable: true, description: 'Why it was refused; null when valid' })
  error: string | null;
}

export class CredentialResponse implements CredentialView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['DocumentSystem'] })
  type: 'DocumentSystem';

  @ApiProperty()
  instanceUrl: string;

  @ApiProperty()
  username: string;

  @ApiProperty()
  passwordConfigured: boolean;

  @ApiProperty({ enum: CREDENTIAL_SCOPES })
  scope: CredentialScope;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  projectId: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Only for scope DataSource' })
  dataSourceId?: string | null;

  @ApiProperty({
    type: () => CredentialLastValidationResponse,
    nullable: true,
    description:
      'The last POST /v1/credentials/{id}/validate: null until checked, and again once the password, username or instance URL changes',
  })
  lastValidation: CredentialLastValidationResponse | null;

  @ApiProperty()
  createdBy: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class CredentialValidationResponse implements CredentialValidationView {
  @ApiProperty({ type: Boolean, description: 'Always true: invalid credentials answer 422 `CREDENTIALS_INVALID`' })
  valid: true;
}
