import { DomainException } from '@app/errors';
import { DocumentSystemErrorCode } from '../../document-system/document-system.exception';

/**
 * A folder the document system no longer has (404): its listing has nothing more to give, so it is not
 * retried, nor counted a failed listing; its files go unseen and the deletion guard decides on them.
 */
export function isFolderGone(error: unknown): boolean {
  return error instanceof DomainException && error.code === DocumentSystemErrorCode.FolderNotFound;
}
