import { useEffect, useRef, useState } from 'react';
import { useConsole } from '../session/console-context';
import { Button } from '../ui/controls';
import { connectInPopup, ConnectionOutcome, PopupConnection } from './oauth-popup';

/**
 * "Connect": runs the OAuth popup for a provider and reports the new connection; while it waits it
 * says so, and a failure shows the provider's message with what to do.
 */
export function ConnectButton(props: {
  providerId: string;
  label?: string;
  onConnected: (connectionId: string) => void;
  disabled?: boolean;
}) {
  const { connector } = useConsole();
  const [waiting, setWaiting] = useState<PopupConnection | null>(null);
  const [failure, setFailure] = useState<Extract<ConnectionOutcome, { ok: false }> | null>(null);
  const mounted = useRef(true);
  // Set on every mount: React's StrictMode mounts, unmounts and mounts again in development.
  useEffect(() => {
    mounted.current = true;
    return () => void (mounted.current = false);
  }, []);

  const start = async () => {
    setFailure(null);
    const connection = connectInPopup(connector, props.providerId);
    setWaiting(connection);
    const outcome = await connection.outcome;
    if (!mounted.current) return;
    setWaiting(null);
    if (outcome.ok) props.onConnected(outcome.connectionId);
    else setFailure(outcome);
  };

  return (
    <div className="connect">
      <div className="row">
        <Button
          kind="primary"
          onClick={start}
          busy={waiting !== null}
          busyLabel="Waiting for the sign-in window…"
          disabled={props.disabled || !props.providerId}
        >
          {props.label ?? 'Connect'}
        </Button>
        {waiting ? (
          <Button kind="link" onClick={waiting.cancel}>
            Cancel
          </Button>
        ) : null}
      </div>
      {failure ? (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">{failure.message}</p>
          {failure.resolution ? (
            <p className="notice-action">
              <span className="what-to-do">What to do:</span> {failure.resolution}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
