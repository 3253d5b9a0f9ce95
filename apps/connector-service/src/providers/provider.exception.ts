import { DomainException } from '@app/errors';

export enum ProviderErrorCode {
  NotFound = 'PROVIDER_NOT_FOUND',
  InUse = 'PROVIDER_IN_USE',
  SecretRequired = 'SECRET_REQUIRED',
}

export class ProviderException extends DomainException {
  static notFound() {
    return new ProviderException(404, ProviderErrorCode.NotFound, 'OAuth provider not found');
  }

  static inUse(dataSourceCount: number) {
    return new ProviderException(
      409,
      ProviderErrorCode.InUse,
      `OAuth provider is used by ${dataSourceCount} data source(s); remove them first`,
    );
  }

  /** The stored secret never goes to an endpoint it was not entered for. */
  static secretRequired(changed: string[]) {
    const problem = `clientSecret is required when ${changed.join(' or ')} changes`;
    return new ProviderException(
      400,
      ProviderErrorCode.SecretRequired,
      `Changing ${changed.join(' and ')} needs the clientSecret in the same request`,
      [{ field: 'clientSecret', problems: [problem] }],
    );
  }
}
