import { DomainException } from '@app/errors';

export enum DocumentSystemErrorCode {
  ReauthRequired = 'REAUTH_REQUIRED',
  Unavailable = 'DOCUMENT_SYSTEM_UNAVAILABLE',
  AnswerTooLarge = 'DOCUMENT_SYSTEM_ANSWER_TOO_LARGE',
  ListingTooLong = 'DOCUMENT_SYSTEM_LISTING_TOO_LONG',
  DownloadTooSlow = 'DOCUMENT_SYSTEM_DOWNLOAD_TOO_SLOW',
  FolderNotFound = 'FOLDER_NOT_FOUND',
  FileNotFound = 'FILE_NOT_FOUND',
  CredentialsInvalid = 'CREDENTIALS_INVALID',
}

/** The document system answered that it does not have the file (it was deleted, or moved out of reach). */
export function isFileGone(error: unknown): boolean {
  return error instanceof DomainException && error.code === DocumentSystemErrorCode.FileNotFound;
}

/** The authorization is gone: the user must connect again (no retry can help). */
export function isReauthRequired(error: unknown): boolean {
  return error instanceof DomainException && error.code === DocumentSystemErrorCode.ReauthRequired;
}

export class DocumentSystemException extends DomainException {
  /** SPEC: "Generic authentication error in the folder picker" → re-authenticate. */
  static reauthRequired() {
    return new DocumentSystemException(409, DocumentSystemErrorCode.ReauthRequired, 'Re-authenticate', [
      { resolution: 'The document-system authorization expired or its refresh failed: connect again.' },
    ]);
  }

  static unavailable(reason: string) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.Unavailable,
      `The document system did not answer: ${reason}`,
    );
  }

  /** An answer that is not file content and is larger than we read (CONTRACT.md: 16 MiB). */
  static answerTooLarge(limitBytes: number) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.AnswerTooLarge,
      `The document system's answer is larger than ${limitBytes / 1024 / 1024} MiB`,
      [
        {
          resolution:
            'Ask the document-system administrator why this folder answers so much; smaller pages would help.',
        },
      ],
    );
  }

  /** An answer whose headers pass what Node's HTTP client reads (http.maxHeaderSize, 16 KiB by default). */
  static headersTooLarge(limitBytes: number) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.AnswerTooLarge,
      `The document system's answer headers are larger than ${limitBytes / 1024} KiB`,
    );
  }

  /** A listing page with more items than LISTING_MAX_ITEMS (CONTRACT.md, fair share): that call fails. */
  static listingTooLong(items: number, maxItems: number) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.ListingTooLong,
      `The document system's listing page holds ${items} items, more than LISTING_MAX_ITEMS (${maxItems})`,
      [{ resolution: 'Ask the document-system administrator for smaller pages, or raise LISTING_MAX_ITEMS.' }],
    );
  }

  /** A listing page holding items that are not the contract's (no id, another kind): a sync takes no part of it. */
  static unreadableItems(items: number) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.Unavailable,
      `The document system's listing page holds ${items} item(s) without an id or of a kind other than "folder" or "file"`,
    );
  }

  /** A download past one of its deadlines (its minimum rate, or its listed size at that rate). */
  static downloadTooSlow(reason: string) {
    return new DocumentSystemException(502, DocumentSystemErrorCode.DownloadTooSlow, reason);
  }

  static folderNotFound(id: string) {
    return new DocumentSystemException(
      404,
      DocumentSystemErrorCode.FolderNotFound,
      `Folder ${id} not found in the document system`,
    );
  }

  static fileNotFound(id: string) {
    return new DocumentSystemException(
      404,
      DocumentSystemErrorCode.FileNotFound,
      `File ${id} not found in the document system`,
    );
  }

  /** A listed file whose id cannot be put in its download's URL (`.` or `..`): it cannot be fetched, nor is it gone. */
  static fileUnaddressable(id: string) {
    return new DocumentSystemException(
      502,
      DocumentSystemErrorCode.Unavailable,
      `File ${id} cannot be downloaded: its id cannot be part of a URL`,
    );
  }

  /** The document system refused the credential's login: the SPEC's folder-picker message, word for word. */
  static credentialsInvalid() {
    return new DocumentSystemException(422, DocumentSystemErrorCode.CredentialsInvalid, 'Credentials are invalid', [
      { resolution: 'Re-enter the username and password, and check the instance URL.' },
    ]);
  }
}
