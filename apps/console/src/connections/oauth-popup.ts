import type { ConnectorApi } from '../api/connector-api';

export type ConnectionOutcome =
  | { ok: true; connectionId: string; providerId: string }
  | { ok: false; code: string; message: string; resolution?: string };

/** What the callback page posts to its opener (apps/connector-service/src/connections/callback-page.ts). */
interface CallbackMessage {
  type: 'oauth-connection';
  ok: boolean;
  connectionId?: string;
  providerId?: string;
  code?: string;
  message: string;
  resolution?: string;
}

const CLOSED_GRACE_MS = 600;

export interface PopupConnection {
  outcome: Promise<ConnectionOutcome>;
  cancel: () => void;
}

/**
 * The per-user OAuth flow in a popup: opened at once (inside the click, so no popup blocker objects),
 * sent to the provider's authorization URL, and finished by the callback page's postMessage, which
 * is only believed from this console's own origin.
 */
export function connectInPopup(connector: ConnectorApi, providerId: string): PopupConnection {
  const popup = window.open('about:blank', 'oauth-connection', 'popup,width=560,height=720');
  let settle: (outcome: ConnectionOutcome) => void = () => undefined;
  const outcome = new Promise<ConnectionOutcome>((resolve) => (settle = resolve));
  if (!popup) {
    settle({
      ok: false,
      code: 'POPUP_BLOCKED',
      message: 'The browser blocked the sign-in window.',
      resolution: 'Allow popups for this site, then click Connect again.',
    });
    return { outcome, cancel: () => undefined };
  }

  let done = false;
  const finish = (result: ConnectionOutcome) => {
    if (done) return;
    done = true;
    window.removeEventListener('message', onMessage);
    clearInterval(watch);
    settle(result);
  };
  const onMessage = (event: MessageEvent) => {
    const data = event.data as Partial<CallbackMessage> | null;
    if (event.origin !== location.origin || event.source !== popup || data?.type !== 'oauth-connection') return;
    if (data.ok && data.connectionId)
      finish({ ok: true, connectionId: data.connectionId, providerId: data.providerId ?? providerId });
    else
      finish({
        ok: false,
        code: data.code ?? 'OAUTH_FAILED',
        message: data.message ?? 'The connection failed.',
        resolution: data.resolution,
      });
  };
  window.addEventListener('message', onMessage);
  // The page closes itself after posting; a window closed without a message was closed by the person.
  const watch = window.setInterval(() => {
    if (popup.closed) {
      clearInterval(watch);
      window.setTimeout(
        () =>
          finish({
            ok: false,
            code: 'POPUP_CLOSED',
            message: 'The sign-in window was closed before the connection was made.',
            resolution: 'Click Connect again and finish signing in.',
          }),
        CLOSED_GRACE_MS,
      );
    }
  }, 300);

  connector.connections.authorize(providerId).then(
    (started) => {
      if (!done) popup.location.href = started.authorizationUrl;
    },
    (error: Error & { resolution?: string; code?: string }) => {
      popup.close();
      finish({
        ok: false,
        code: error.code ?? 'OAUTH_FAILED',
        message: error.message,
        resolution: error.resolution ?? 'Check the connector, then click Connect again.',
      });
    },
  );

  return {
    outcome,
    cancel: () => {
      popup.close();
      finish({
        ok: false,
        code: 'CANCELLED',
        message: 'Connecting was cancelled.',
        resolution: 'Click Connect to start again.',
      });
    },
  };
}
