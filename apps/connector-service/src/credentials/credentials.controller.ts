import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import {
  ApiErrorResponses,
  CredentialResponse,
  CredentialValidationResponse,
  CredentialValidationView,
  CredentialView,
} from '@app/contracts';
import { CredentialsService } from './credentials.service';
import { CreateCredentialDto, UpdateCredentialDto, ValidateCredentialDto } from './dto/credential-input.dto';
import { credentialResponse } from './dto/credential.response';

const MANAGERS = ['admin', 'oauth-connectors:manage'];

@ApiTags('credentials')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/credentials')
export class CredentialsController {
  constructor(private readonly service: CredentialsService) {}

  @Post()
  @RequireAnyRole(...MANAGERS)
  @ApiCreatedResponse({ type: CredentialResponse })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCredentialDto): Promise<CredentialView> {
    return credentialResponse(await this.service.create(principal, body));
  }

  /** Any member of the tenant may list credentials (to pick one); passwords are never shown. */
  @Get()
  @ApiOkResponse({ type: [CredentialResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<CredentialView[]> {
    return (await this.service.list(principal)).map(credentialResponse);
  }

  @Get(':id')
  @ApiOkResponse({ type: CredentialResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<CredentialView> {
    return credentialResponse(await this.service.get(principal, id));
  }

  @Put(':id')
  @RequireAnyRole(...MANAGERS)
  @ApiOkResponse({ type: CredentialResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateCredentialDto,
  ): Promise<CredentialView> {
    return credentialResponse(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  /** Any member may check a credential with their own connection: 200 {valid: true} or 422. */
  @Post(':id/validate')
  @HttpCode(200)
  @ApiOkResponse({ type: CredentialValidationResponse })
  validate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: ValidateCredentialDto,
  ): Promise<CredentialValidationView> {
    return this.service.validate(principal, id, body.connectionId);
  }
}
