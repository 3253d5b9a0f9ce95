import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import { CredentialsService } from './credentials.service';
import { CreateCredentialDto, UpdateCredentialDto, ValidateCredentialDto } from './dto/credential-input.dto';
import { credentialResponse } from './dto/credential.response';

const MANAGERS = ['admin', 'oauth-connectors:manage'];

@ApiTags('credentials')
@ApiBearerAuth()
@Controller('v1/credentials')
export class CredentialsController {
  constructor(private readonly service: CredentialsService) {}

  @Post()
  @RequireAnyRole(...MANAGERS)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCredentialDto) {
    return credentialResponse(await this.service.create(principal, body));
  }

  /** Any member of the tenant may list credentials (to pick one); passwords are never shown. */
  @Get()
  async list(@CurrentPrincipal() principal: Principal) {
    return (await this.service.list(principal)).map(credentialResponse);
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return credentialResponse(await this.service.get(principal, id));
  }

  @Put(':id')
  @RequireAnyRole(...MANAGERS)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateCredentialDto,
  ) {
    return credentialResponse(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    await this.service.remove(principal, id);
  }

  /** Any member may check a credential with their own connection: 200 {valid: true} or 422. */
  @Post(':id/validate')
  @HttpCode(200)
  validate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: ValidateCredentialDto,
  ) {
    return this.service.validate(principal, id, body.connectionId);
  }
}
