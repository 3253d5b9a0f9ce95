import { DomainException } from '@app/errors';

export enum ProviderErrorCode {
  NotFound = 'PROVIDER_NOT_FOUND',
  InUse = 'PROVIDER_IN_USE',
}

export class ProviderException extends DomainException {
  static notFound() {
    return new ProviderException(404, ProviderErrorCode.NotFound, 'OAuth provider not found');
  }

  static inUse(dataSourceCount: number) {
    return new ProviderException(409, ProviderErrorCode.InUse, `OAuth provider is used by ${dataSourceCount} data source(s); remove them first`);
  }
}
