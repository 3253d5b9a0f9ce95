import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import { ApiErrorResponses, ProviderResponse, ProviderView } from '@app/contracts';
import { CreateProviderDto, UpdateProviderDto } from './dto/provider-input.dto';
import { providerResponse } from './dto/provider.response';
import { OAuthCallbackUrl } from './oauth-callback-url';
import { OAuthProviderEntity } from './oauth-provider.entity';
import { ProvidersService } from './providers.service';

const MANAGERS = ['admin', 'oauth-connectors:manage'];

@ApiTags('OAuth providers')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v2/OAuth/providers')
export class ProvidersController {
  constructor(
    private readonly service: ProvidersService,
    private readonly callbackUrl: OAuthCallbackUrl,
  ) {}

  @Post()
  @RequireAnyRole(...MANAGERS)
  @ApiCreatedResponse({ type: ProviderResponse })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderDto): Promise<ProviderView> {
    return this.view(await this.service.create(principal, body));
  }

  /** Any member of the tenant may list providers (to connect to one); secrets are never shown. */
  @Get()
  @ApiOkResponse({ type: [ProviderResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<ProviderView[]> {
    return (await this.service.list(principal)).map((p) => this.view(p));
  }

  @Get(':id')
  @ApiOkResponse({ type: ProviderResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<ProviderView> {
    return this.view(await this.service.get(principal, id));
  }

  @Put(':id')
  @RequireAnyRole(...MANAGERS)
  @ApiOkResponse({ type: ProviderResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateProviderDto,
  ): Promise<ProviderView> {
    return this.view(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  private view(provider: OAuthProviderEntity): ProviderView {
    return providerResponse(provider, this.callbackUrl.value);
  }
}
