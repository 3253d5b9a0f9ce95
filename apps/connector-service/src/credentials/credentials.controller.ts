import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import {
  ApiErrorResponses,
  ApiErrors,
  CredentialResponse,
  CredentialValidationResponse,
  ErrorAnswer,
} from '@app/contracts/openapi';
import { CredentialValidationView, CredentialView } from '@app/contracts/views';
import { CredentialsService } from './credentials.service';
import { CreateCredentialDto, UpdateCredentialDto, ValidateCredentialDto } from './dto/credential-input.dto';
import { credentialResponse } from './dto/credential.response';

const MANAGERS = ['admin', 'oauth-connectors:manage'];
/** Who may change, delete or check a data source's own credential (scope DataSource). */
const OWN_CREDENTIAL_RULE =
  " A data source's own credential (scope DataSource) only by its data source's creator or a tenant admin: " +
  'its other members get 403 DATA_SOURCE_MANAGE_FORBIDDEN.';
/** 403s of an operation that needs a role too: FORBIDDEN without one. */
const ROLE_OR_MANAGE_FORBIDDEN: ErrorAnswer = [403, 'FORBIDDEN', 'DATA_SOURCE_MANAGE_FORBIDDEN'];

@ApiTags('credentials')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/credentials')
export class CredentialsController {
  constructor(private readonly service: CredentialsService) {}

  @Post()
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Save the document-system login of the tenant or of one project',
    description: 'Needs role admin or oauth-connectors:manage. The password is stored encrypted and never returned.',
  })
  @ApiCreatedResponse({ type: CredentialResponse })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCredentialDto): Promise<CredentialView> {
    return credentialResponse(await this.service.create(principal, body));
  }

  @Get()
  @ApiOperation({
    summary: 'List the credentials of the tenant, to pick one for a data source',
    description: 'Any member of the tenant may list them; passwords are never shown.',
  })
  @ApiOkResponse({ type: [CredentialResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<CredentialView[]> {
    return (await this.service.list(principal)).map(credentialResponse);
  }

  @Get(':id')
  @ApiErrors([404, 'CREDENTIAL_NOT_FOUND'])
  @ApiOperation({ summary: 'Show one credential, without its password' })
  @ApiOkResponse({ type: CredentialResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<CredentialView> {
    return credentialResponse(await this.service.get(principal, id));
  }

  @Put(':id')
  @ApiErrors([400, 'VALIDATION_FAILED', 'SECRET_REQUIRED', 'URL_NOT_ALLOWED'], ROLE_OR_MANAGE_FORBIDDEN, [
    404,
    'CREDENTIAL_NOT_FOUND',
  ])
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Replace a credential',
    description:
      'Needs role admin or oauth-connectors:manage. The password may be left out, except when instanceUrl or ' +
      'username change (400 SECRET_REQUIRED), so a stored password never goes where it was not entered for. ' +
      'Changing username, or instanceUrl within its origin, discards the selection of every data source using it ' +
      '(NotConfigured; its documents removed), as pointing it at another credential does.' +
      OWN_CREDENTIAL_RULE,
  })
  @ApiOkResponse({ type: CredentialResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: UpdateCredentialDto,
  ): Promise<CredentialView> {
    return credentialResponse(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @ApiErrors(ROLE_OR_MANAGE_FORBIDDEN, [404, 'CREDENTIAL_NOT_FOUND'], [409, 'CREDENTIAL_IN_USE'])
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Delete a credential',
    description:
      'Needs role admin or oauth-connectors:manage; 409 CREDENTIAL_IN_USE while a data source uses it.' +
      OWN_CREDENTIAL_RULE,
  })
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  @Post(':id/validate')
  @ApiErrors(
    [403, 'DATA_SOURCE_MANAGE_FORBIDDEN'],
    [404, 'CREDENTIAL_NOT_FOUND', 'CONNECTION_NOT_FOUND'],
    [422, 'CREDENTIALS_INVALID'],
  )
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check that a credential logs in to the document system, through one of my connections',
    description:
      'Any member may check a credential: 200 {valid: true}, or 422 CREDENTIALS_INVALID; the outcome is kept ' +
      'as its lastValidation.' +
      OWN_CREDENTIAL_RULE,
  })
  @ApiOkResponse({ type: CredentialValidationResponse })
  validate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: ValidateCredentialDto,
  ): Promise<CredentialValidationView> {
    return this.service.validate(principal, id, body.connectionId);
  }
}
