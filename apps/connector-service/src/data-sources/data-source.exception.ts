import { DomainException } from '@app/errors';

export enum DataSourceErrorCode {
  NotFound = 'DATA_SOURCE_NOT_FOUND',
  UnknownFolder = 'UNKNOWN_FOLDER',
  ConflictingSelection = 'CONFLICTING_SELECTION',
  CredentialRequired = 'CREDENTIAL_REQUIRED',
  ConnectionNotActive = 'REAUTH_REQUIRED',
  ManageForbidden = 'DATA_SOURCE_MANAGE_FORBIDDEN',
  CreatorIsMember = 'CREATOR_IS_MEMBER',
  ChangedMeanwhile = 'DATA_SOURCE_CHANGED',
}

export class DataSourceException extends DomainException {
  static notFound() {
    return new DataSourceException(404, DataSourceErrorCode.NotFound, 'Data source not found');
  }

  static manageForbidden() {
    return new DataSourceException(
      403,
      DataSourceErrorCode.ManageForbidden,
      'Only the creator of this data source or a tenant admin may change it',
      [{ resolution: 'Members may read, browse, search and sync; ask its creator or a tenant admin for changes.' }],
    );
  }

  static creatorIsMember() {
    return new DataSourceException(
      409,
      DataSourceErrorCode.CreatorIsMember,
      'The creator of a data source is always one of its members',
    );
  }

  /** Its credential or connection kept changing while a selection was resolved against it. */
  static changedMeanwhile() {
    return new DataSourceException(
      409,
      DataSourceErrorCode.ChangedMeanwhile,
      'The data source changed while the selection was being resolved; send it again',
    );
  }

  /** It moved to another login, and what the former login ingested could not be removed yet: no run starts until it is. */
  static formerLoginLeaving() {
    return new DataSourceException(
      409,
      DataSourceErrorCode.ChangedMeanwhile,
      'The data source moved to another login; what the former login ingested is still being removed: try again shortly',
    );
  }

  static unknownFolders(ids: string[]) {
    return new DataSourceException(
      400,
      DataSourceErrorCode.UnknownFolder,
      `Unknown folder(s): ${ids.join(', ')}; browse to them in the folder picker first`,
      ids.map((id) => ({ field: 'selection', folderId: id })),
    );
  }

  static conflictingSelection(ids: string[]) {
    return new DataSourceException(
      400,
      DataSourceErrorCode.ConflictingSelection,
      `Folder(s) both included and excluded: ${ids.join(', ')}`,
    );
  }

  static credentialRequired() {
    return new DataSourceException(
      400,
      DataSourceErrorCode.CredentialRequired,
      'Give either credentialId or an inline credential',
      [{ field: 'credentialId', problems: ['credentialId or credential is required'] }],
    );
  }

  /** The credential points at another origin than the one recorded: no token goes there until confirmed. */
  static instanceMoved() {
    return new DataSourceException(
      409,
      DataSourceErrorCode.ConnectionNotActive,
      "Re-authenticate: the data source's credential now points at another document system",
      [
        {
          resolution:
            "Its creator (or a tenant admin) confirms the new instance URL by saving the data source (PATCH); until then the creator's authorization is not sent there.",
        },
      ],
    );
  }

  static connectionNotActive() {
    return new DataSourceException(409, DataSourceErrorCode.ConnectionNotActive, 'Re-authenticate', [
      { resolution: 'The OAuth connection expired or its refresh failed: connect again.' },
    ]);
  }
}
