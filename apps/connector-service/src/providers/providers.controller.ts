import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import { CreateProviderDto, UpdateProviderDto } from './dto/provider-input.dto';
import { providerResponse } from './dto/provider.response';
import { OAuthCallbackUrl } from './oauth-callback-url';
import { OAuthProviderEntity } from './oauth-provider.entity';
import { ProvidersService } from './providers.service';

const MANAGERS = ['admin', 'oauth-connectors:manage'];

@ApiTags('OAuth providers')
@ApiBearerAuth()
@Controller('v2/OAuth/providers')
export class ProvidersController {
  constructor(
    private readonly service: ProvidersService,
    private readonly callbackUrl: OAuthCallbackUrl,
  ) {}

  @Post()
  @RequireAnyRole(...MANAGERS)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderDto) {
    return this.view(await this.service.create(principal, body));
  }

  /** Any member of the tenant may list providers (to connect to one); secrets are never shown. */
  @Get()
  async list(@CurrentPrincipal() principal: Principal) {
    return (await this.service.list(principal)).map((p) => this.view(p));
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.view(await this.service.get(principal, id));
  }

  @Put(':id')
  @RequireAnyRole(...MANAGERS)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateProviderDto,
  ) {
    return this.view(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    await this.service.remove(principal, id);
  }

  private view(provider: OAuthProviderEntity) {
    return providerResponse(provider, this.callbackUrl.value);
  }
}
