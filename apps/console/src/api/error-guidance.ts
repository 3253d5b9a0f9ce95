import { ApiError } from './api-error';

export interface Guidance {
  title: string;
  /** What the person can do about it. */
  action: string;
}

/** Every error the console shows says what happened and what to do (SPEC.md's error table first). */
export function guidanceFor(error: unknown): Guidance {
  if (!(error instanceof ApiError))
    return { title: error instanceof Error ? error.message : String(error), action: 'Reload the page and try again.' };
  const said = error.resolution;
  switch (error.code) {
    case 'CREDENTIALS_INVALID':
      return { title: 'Credentials are invalid', action: said ?? 'Re-enter credentials; check the instance URL.' };
    case 'REAUTH_REQUIRED':
      return { title: 'Re-authenticate', action: said ?? 'Connect to the document system again.' };
    case 'OAUTH_INVALID_SCOPE':
    case 'OAUTH_INVALID_CLIENT':
    case 'OAUTH_REDIRECT_URI_MISMATCH':
      return { title: error.message, action: said ?? 'Check the connector registration.' };
    case 'SERVICE_UNREACHABLE':
      return { title: error.message, action: 'Check that the service is running and reachable, then try again.' };
    case 'UNAUTHENTICATED':
      return { title: 'Your session has ended', action: 'Sign in again.' };
    case 'FORBIDDEN':
      return { title: error.message, action: 'Sign in with the admin role (or oauth-connectors:manage) for this.' };
    case 'VALIDATION_FAILED':
      return { title: 'Some fields need attention', action: said ?? 'Correct the marked fields and submit again.' };
    case 'PROVIDER_IN_USE':
    case 'CREDENTIAL_IN_USE':
      return { title: error.message, action: 'Delete or change the data sources that use it first.' };
    case 'NOTHING_SELECTED':
      return { title: 'Nothing is selected', action: 'Choose folders in the folder picker, then sync.' };
    case 'SYNC_IN_PROGRESS':
      return { title: error.message, action: 'Wait for the running sync to end.' };
    case 'INTERNAL_ERROR':
      return {
        title: 'The service failed unexpectedly',
        action: `Try again; if it keeps failing, give the operator this: ${error.message}`,
      };
    default:
      return {
        title: error.message,
        action: said ?? (error.status >= 500 ? 'Try again in a moment.' : 'Check what you entered and try again.'),
      };
  }
}
