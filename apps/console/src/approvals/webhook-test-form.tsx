import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { WebhookToTest } from '../api/approval-api';
import type { WebhookTest } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, TextField } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction } from '../ui/hooks';

/**
 * "Test a webhook": one signed test delivery to an endpoint while an approval step is being configured
 * (one attempt, nothing stored), and what the endpoint answered.
 */
export function WebhookTestForm() {
  const { approvals } = useConsole();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [timeout, setTimeoutSeconds] = useState('10');
  const [result, setResult] = useState<WebhookTest | null>(null);
  const action = useAction();

  const send = (event: FormEvent) => {
    event.preventDefault();
    const webhook: WebhookToTest = {
      url,
      authentication: token ? { type: 'BearerToken', token } : { type: 'None' },
      timeoutSeconds: Number(timeout),
      maxRetryAttempts: 0,
      message: 'A test from the connector console',
    };
    void action.run(async () => (setResult(null), setResult(await approvals.testWebhook(webhook))));
  };
  const problems = action.error instanceof ApiError ? action.error.fieldProblems : {};

  if (!open) return <Button onClick={() => setOpen(true)}>Test a webhook</Button>;
  return (
    <form className="card form" onSubmit={send} aria-labelledby="webhook-test-title" noValidate>
      <h2 id="webhook-test-title">Test a webhook</h2>
      <TextField label="Webhook URL" value={url} onChange={setUrl} required problems={problems['webhook.url']} />
      <TextField
        label="Bearer token (optional)"
        type="password"
        value={token}
        onChange={setToken}
        autoComplete="off"
        problems={problems['webhook.authentication.token']}
      />
      <TextField
        label="Timeout in seconds"
        value={timeout}
        onChange={setTimeoutSeconds}
        problems={problems['webhook.timeoutSeconds']}
      />
      <ErrorNotice error={action.error} />
      {result ? <TestOutcome result={result} /> : null}
      <div className="row">
        <Button type="submit" kind="primary" busy={action.busy} busyLabel="Sending…" disabled={!url}>
          Send a test delivery
        </Button>
        <Button kind="link" onClick={() => (setOpen(false), setResult(null), action.clear())}>
          Close
        </Button>
      </div>
    </form>
  );
}

function TestOutcome({ result }: { result: WebhookTest }) {
  if (result.delivered)
    return <Notice kind="success" title={`Delivered: HTTP ${result.httpStatus} after ${result.durationMs} ms`} />;
  const answer =
    result.httpStatus !== null ? `HTTP ${result.httpStatus} after ${result.durationMs} ms` : 'no HTTP answer';
  // The service's error for a non-2xx answer is "HTTP 500" again: the title says it already.
  const error = result.error?.trim() === `HTTP ${result.httpStatus}` ? null : result.error;
  return (
    <Notice kind="warning" title={`Not delivered: ${answer}`}>
      {error ? <p>{error}</p> : null}
    </Notice>
  );
}
