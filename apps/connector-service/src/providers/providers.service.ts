import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { Transactions } from '@app/database';
import { ValidationFailedException } from '@app/errors';
import { UrlPolicy } from '../common/url-policy';
import { CreateProviderDto, UpdateProviderDto } from './dto/provider-input.dto';
import { OAuthProviderEntity } from './oauth-provider.entity';
import { ProviderException } from './provider.exception';
import { ProviderSecretsRepository } from './provider-secrets.repository';
import { ProviderFields, ProvidersRepository } from './providers.repository';

@Injectable()
export class ProvidersService {
  constructor(
    private readonly providers: ProvidersRepository,
    private readonly transactions: Transactions,
    private readonly secrets: ProviderSecretsRepository,
    private readonly urlPolicy: UrlPolicy,
  ) {}

  async create(principal: Principal, input: CreateProviderDto): Promise<OAuthProviderEntity> {
    this.assertEndpoints(input);
    return this.transactions.run(async (transaction) => {
      const provider = await this.providers.create(transaction, {
        ...fields(input),
        tenantId: principal.tenantId,
        secretVersion: 1,
        createdBy: principal.userId,
      });
      await this.secrets.add(transaction, provider.id, 1, input.clientSecret);
      return provider;
    });
  }

  list(principal: Principal): Promise<OAuthProviderEntity[]> {
    return this.providers.listInTenant(principal.tenantId);
  }

  async get(principal: Principal, id: string): Promise<OAuthProviderEntity> {
    return this.inTenant(principal.tenantId, id);
  }

  /** Loads a provider of the tenant (404 otherwise), for work done without a caller. */
  async inTenant(tenantId: string, id: string): Promise<OAuthProviderEntity> {
    const provider = await this.providers.findInTenant(tenantId, id);
    if (!provider) throw ProviderException.notFound();
    return provider;
  }

  /** Full replacement; a `clientSecret` rotates the secret, keeping older versions that connections still need. */
  async update(principal: Principal, id: string, input: UpdateProviderDto): Promise<OAuthProviderEntity> {
    await this.get(principal, id);
    this.assertEndpoints(input);
    return this.transactions.run(async (transaction) => {
      const provider = await this.providers.lockInTenant(transaction, principal.tenantId, id);
      if (!provider) throw ProviderException.notFound();
      const moved = movedEndpoints(provider, input);
      if (moved.length && input.clientSecret === undefined) throw ProviderException.secretRequired(moved);
      Object.assign(provider, fields(input));
      if (input.clientSecret !== undefined) {
        provider.secretVersion += 1;
        await this.secrets.add(transaction, provider.id, provider.secretVersion, input.clientSecret);
      }
      const saved = await this.providers.save(transaction, provider);
      // A secret entered for the old endpoints never goes to the new ones; their connections authorize again.
      if (moved.length) await this.secrets.dropOlderThan(transaction, provider.id, provider.secretVersion);
      else await this.secrets.prune(provider.id, transaction);
      return saved;
    });
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const provider = await this.get(principal, id);
    if (await this.providers.deleteUnused(provider.id)) return;
    throw ProviderException.inUse(Math.max(1, await this.providers.countDataSourcesUsing(provider.id)));
  }

  private assertEndpoints(input: CreateProviderDto): void {
    const endpoints = {
      authorizationEndpoint: input.authorizationEndpoint,
      tokenEndpoint: input.tokenEndpoint,
      revokeEndpoint: input.revokeEndpoint,
    };
    this.urlPolicy.assertAllowed(endpoints);
    // RFC 6749 §3.1: an endpoint URI must not include a fragment component.
    const withFragment = Object.entries(endpoints).filter(([, url]) => url && new URL(url).hash);
    if (withFragment.length) {
      throw new ValidationFailedException(
        withFragment.map(([field]) => `${field} must not contain a #fragment`).join('; '),
        withFragment.map(([field]) => ({ field, problems: [`${field} must not contain a #fragment`] })),
      );
    }
  }
}

/** The endpoints a stored secret or token would be sent to that the update changes. */
function movedEndpoints(
  provider: OAuthProviderEntity,
  input: UpdateProviderDto,
): Array<'tokenEndpoint' | 'revokeEndpoint'> {
  const next = fields(input);
  return (['tokenEndpoint', 'revokeEndpoint'] as const).filter((field) => next[field] !== provider[field]);
}

function fields(input: CreateProviderDto): Omit<ProviderFields, 'tenantId' | 'secretVersion' | 'createdBy'> {
  return {
    name: input.name,
    provider: input.provider,
    authenticationType: input.authenticationType,
    clientId: input.clientId,
    authorizationEndpoint: input.authorizationEndpoint,
    tokenEndpoint: input.tokenEndpoint,
    revokeEndpoint: input.revokeEndpoint ?? '',
    supportedScopes: [...new Set(input.supportedScopes)],
    tokenEndpointAuthMethod: input.behaviour?.tokenEndpointAuthMethod ?? 'CLIENT_SECRET_POST',
  };
}
