import type { ConnectorApi } from '../api/connector-api';

export type ConnectionOutcome =
  | { ok: true; connectionId: string; providerId: string }
  | { ok: false; code: string; message: string; resolution?: string };

/**
 * What the callback page broadcasts (apps/connector-service/src/connections/callback-page.ts), under the
 * OAuth state of the authorization it ends.
 */
interface CallbackMessage {
  type: 'oauth-connection';
  state: string;
  ok: boolean;
  connectionId?: string;
  providerId?: string;
  code?: string;
  message: string;
  resolution?: string;
}

/** Same name as the callback page's OAUTH_OUTCOME_CHANNEL; a BroadcastChannel is same-origin only. */
const OUTCOME_CHANNEL = 'oauth-connection-outcome';
const CLOSED_GRACE_MS = 600;

export interface PopupConnection {
  outcome: Promise<ConnectionOutcome>;
  cancel: () => void;
}

/**
 * The per-user OAuth flow in a popup: opened at once (inside the click, so no popup blocker objects),
 * disowned, sent to the provider's authorization URL, and finished by the callback page's broadcast
 * for this flow's state. Disowned because the provider's pages run there: with `window.opener` they
 * could send this tab elsewhere while the person signs in. This handle stays, but a disowned popup on
 * another origin cannot be closed from here; on our callback page again, it can.
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

  let state: string | null = null;
  let done = false;
  const channel = new BroadcastChannel(OUTCOME_CHANNEL);
  const finish = (result: ConnectionOutcome) => {
    if (done) return;
    done = true;
    channel.close();
    clearInterval(watch);
    settle(result);
  };
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data as Partial<CallbackMessage> | null;
    // Another tab's popup broadcasts on the same channel: only this flow's state settles this one.
    if (state === null || data?.type !== 'oauth-connection' || data.state !== state) return;
    if (data.ok && data.connectionId) popup.close();
    finish(outcomeOf(data, providerId));
  };
  // A window closed without a message was closed by the person.
  const watch = window.setInterval(() => {
    if (popup.closed) {
      clearInterval(watch);
      window.setTimeout(() => finish(POPUP_CLOSED), CLOSED_GRACE_MS);
    }
  }, 300);

  connector.connections.authorize(providerId).then(
    (started) => {
      if (done) return;
      state = started.state;
      // Still about:blank, so still ours to disown (HTML: setting opener to null).
      popup.opener = null;
      popup.location.href = started.authorizationUrl;
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
      finish(cancelled(popup.closed));
    },
  };
}

function outcomeOf(data: Partial<CallbackMessage>, providerId: string): ConnectionOutcome {
  if (data.ok && data.connectionId)
    return { ok: true, connectionId: data.connectionId, providerId: data.providerId ?? providerId };
  return {
    ok: false,
    code: data.code ?? 'OAUTH_FAILED',
    message: data.message ?? 'The connection failed.',
    resolution: data.resolution,
  };
}

const POPUP_CLOSED: ConnectionOutcome = {
  ok: false,
  code: 'POPUP_CLOSED',
  message: 'The sign-in window was closed before the connection was made.',
  resolution: 'Click Connect again and finish signing in.',
};

/** At the provider the popup is out of reach (see connectInPopup): then the person closes it. */
function cancelled(popupClosed: boolean): ConnectionOutcome {
  return {
    ok: false,
    code: 'CANCELLED',
    message: 'Connecting was cancelled.',
    resolution: popupClosed
      ? 'Click Connect to start again.'
      : 'Close the sign-in window, then click Connect to start again.',
  };
}
