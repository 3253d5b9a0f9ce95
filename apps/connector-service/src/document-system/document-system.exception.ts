import { DomainException } from '@app/errors';
import { CredentialException } from '../credentials/credential.exception';

export enum DocumentSystemErrorCode {
  ReauthRequired = 'REAUTH_REQUIRED',
  Unavailable = 'DOCUMENT_SYSTEM_UNAVAILABLE',
  FolderNotFound = 'FOLDER_NOT_FOUND',
  FileNotFound = 'FILE_NOT_FOUND',
}

export class DocumentSystemException extends DomainException {
  /** SPEC: "Generic authentication error in the folder picker" → re-authenticate. */
  static reauthRequired() {
    return new DocumentSystemException(409, DocumentSystemErrorCode.ReauthRequired, 'Re-authenticate', [
      { resolution: 'The document-system authorization expired or its refresh failed: connect again.' },
    ]);
  }

  static unavailable(reason: string) {
    return new DocumentSystemException(502, DocumentSystemErrorCode.Unavailable, `The document system did not answer: ${reason}`);
  }

  static folderNotFound(id: string) {
    return new DocumentSystemException(404, DocumentSystemErrorCode.FolderNotFound, `Folder ${id} not found in the document system`);
  }

  static fileNotFound(id: string) {
    return new DocumentSystemException(404, DocumentSystemErrorCode.FileNotFound, `File ${id} not found in the document system`);
  }

  static credentialsInvalid() {
    return CredentialException.invalid();
  }
}
