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
import { ApiErrorResponses, ApiErrors, ProviderResponse } from '@app/contracts/openapi';
import { ProviderView } from '@app/contracts/views';
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
  @ApiErrors([400, 'VALIDATION_FAILED', 'URL_NOT_ALLOWED'])
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Register an OAuth provider for the tenant',
    description:
      'Needs role admin or oauth-connectors:manage. The answer carries the redirectUri to enter at the ' +
      'provider, and warnings (such as a missing offline_access scope).',
  })
  @ApiCreatedResponse({ type: ProviderResponse })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderDto): Promise<ProviderView> {
    return this.view(await this.service.create(principal, body));
  }

  @Get()
  @ApiOperation({
    summary: 'List the OAuth providers of the tenant, to connect to one',
    description: 'Any member of the tenant may list them; client secrets are never shown.',
  })
  @ApiOkResponse({ type: [ProviderResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<ProviderView[]> {
    return (await this.service.list(principal)).map((p) => this.view(p));
  }

  @Get(':id')
  @ApiErrors([404, 'PROVIDER_NOT_FOUND'])
  @ApiOperation({ summary: 'Show one OAuth provider, without its client secret' })
  @ApiOkResponse({ type: ProviderResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<ProviderView> {
    return this.view(await this.service.get(principal, id));
  }

  @Put(':id')
  @ApiErrors([400, 'VALIDATION_FAILED', 'SECRET_REQUIRED', 'URL_NOT_ALLOWED'], [404, 'PROVIDER_NOT_FOUND'])
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Replace an OAuth provider, or rotate its client secret',
    description:
      'Needs role admin or oauth-connectors:manage. clientSecret may be left out, except when tokenEndpoint ' +
      'or revokeEndpoint change (400 SECRET_REQUIRED). A new clientSecret increments secretVersion; existing ' +
      'connections keep working.',
  })
  @ApiOkResponse({ type: ProviderResponse })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Body() body: UpdateProviderDto,
  ): Promise<ProviderView> {
    return this.view(await this.service.update(principal, id, body));
  }

  @Delete(':id')
  @ApiErrors([404, 'PROVIDER_NOT_FOUND'], [409, 'PROVIDER_IN_USE'])
  @HttpCode(204)
  @RequireAnyRole(...MANAGERS)
  @ApiOperation({
    summary: 'Delete an OAuth provider',
    description: 'Needs role admin or oauth-connectors:manage; 409 PROVIDER_IN_USE while data sources use it.',
  })
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.service.remove(principal, id);
  }

  private view(provider: OAuthProviderEntity): ProviderView {
    return providerResponse(provider, this.callbackUrl.value);
  }
}
