import type { ApprovalStatus } from '../approval-store/approval-state';
import type { PageApproval } from './decision-page.repository';
import { escapeHtml, hasHiddenCharacters, visibleHtml, visibleText } from './page-text';
import type { PrettyJson } from './pretty-json';

/** What the form shows: the approval, its step input pretty-printed and cut (null: none asked for). */
export type ShownApproval = Omit<PageApproval, 'stepInput'> & { stepInput: PrettyJson | null };

/**
 * The decision page's HTML: one inline style sheet, no script, no image, nothing from another origin, so
 * it works without JavaScript under `default-src 'none'`. Every value from a request is escaped, its hidden
 * characters shown by their codes, and wrapped anywhere: no value can reorder, hide or push out of sight any text.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:44rem;padding:0 1rem;color:#1f2328;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin-bottom:.25rem}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.meta{color:#59636e;font-size:.875rem}.message{white-space:pre-wrap;border-left:3px solid #d0d7de;padding-left:.75rem}
pre{white-space:pre-wrap;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem;overflow:auto;max-height:28rem;font-size:.85rem}
label{display:block;font-weight:600;margin-top:1rem}textarea,input{width:100%;box-sizing:border-box;font:inherit;padding:.4rem}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{font:inherit;font-weight:600;padding:.5rem 1.5rem;border-radius:6px;border:1px solid;cursor:pointer}
.approve{background:#1f883d;border-color:#1a7f37;color:#fff}.deny{background:#fff;border-color:#cf222e;color:#cf222e}
.hint{font-weight:400;color:#59636e}.note{color:#59636e;font-size:.875rem}
.warning{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:.5rem .75rem}
.hidden-char{font:600 .75em ui-monospace,monospace;background:#fff8c5;border:1px solid #d4a72c;border-radius:3px;padding:0 .15em}`;

const OUTCOME: Partial<Record<ApprovalStatus, string>> = {
  Approved: 'It was approved.',
  Denied: 'It was denied.',
  Cancelled: 'It was cancelled.',
  TimedOut: 'Its decision deadline passed.',
  DeliveryFailed: 'It could not be delivered.',
};

const HIDDEN_CHARACTERS_WARNING = `<p class="warning">This request contains characters that are invisible or change the direction of text.
Each is shown by its code, such as <span class="hidden-char">[U+202E]</span>: read the request as it is shown here.</p>`;

/** The form: who asks, what for, the step input (cut at the service's bound), Approve / Deny. */
export function decisionForm(approval: ShownApproval): string {
  const shown = approval.stepInput;
  const cut = shown !== null && shown.length > shown.text.length;
  const stepInput =
    shown === null || shown.text === 'null'
      ? '<p class="note">No step input.</p>'
      : `<pre>${visibleHtml(shown.text)}${cut ? '\n…' : ''}</pre>` +
        (cut
          ? `<p class="note">Shortened: the first ${count(shown.text.length)} of ${count(shown.length)} characters.</p>`
          : '');
  const { agentName, executionId, stepId, message } = approval;
  const hidden = hasHiddenCharacters(agentName, executionId, stepId, message, shown?.text ?? '');
  return layout(
    visibleText(`Approval requested by ${agentName}`),
    `<h1>${visibleHtml(agentName)} asks for your approval</h1>
<p class="meta">Execution ${visibleHtml(executionId)}, step ${visibleHtml(stepId)}; requested ${new Date(approval.createdAt).toISOString()}</p>
${hidden ? HIDDEN_CHARACTERS_WARNING : ''}
${message ? `<p class="message">${visibleHtml(message)}</p>` : ''}
<h2>Step input</h2>
${stepInput}
<form method="post">
<!-- The default button: disabled, so Enter in a field submits nothing instead of approving. -->
<button type="submit" disabled hidden aria-hidden="true"></button>
<label for="comment">Comment <span class="hint">(optional)</span></label>
<textarea id="comment" name="comment" maxlength="2000" rows="4"></textarea>
<label for="decidedBy">Your name <span class="hint">(optional)</span></label>
<input id="decidedBy" name="decidedBy" maxlength="200" autocomplete="name">
<div class="actions">
<button type="submit" name="status" value="Approved" class="approve">Approve</button>
<button type="submit" name="status" value="Denied" class="deny">Deny</button>
</div>
</form>`,
  );
}

export function decisionRecorded(decided: {
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedAt: Date;
}): string {
  const verb = decided.status === 'Approved' ? 'approved' : 'denied';
  return layout(
    decided.status,
    `<h1>${decided.status}</h1>
<p>You ${verb} the request. Recorded ${new Date(decided.decidedAt).toISOString()}${decided.decidedBy ? ` as decided by ${visibleHtml(decided.decidedBy)}` : ''}.</p>
<p>The agent run goes on with your decision. You can close this page.</p>`,
  );
}

export function alreadyDecided(status: string): string {
  return layout(
    'Already decided',
    `<h1>This approval no longer awaits a decision</h1>
<p>${escapeHtml(OUTCOME[status as ApprovalStatus] ?? `It is ${status}.`)} Nothing was changed.</p>`,
  );
}

/** An error as a person reads it; `message` is the contract's error message. */
export function errorPage(statusCode: number, message: string): string {
  if (statusCode === 404)
    return layout(
      'Link not valid',
      `<h1>This decision link is not valid</h1>
<p>It may have been cut or changed on its way to you. Ask for the request to be sent again.</p>`,
    );
  if (statusCode === 429)
    return layout('Too many requests', '<h1>Too many requests</h1><p>Wait a minute, then try again.</p>');
  if (statusCode >= 400 && statusCode < 500)
    return layout(
      'Not recorded',
      `<h1>Your decision was not recorded</h1><p>${visibleHtml(message)}</p><p>Go back and try again.</p>`,
    );
  return layout('Not available', `<h1>Something went wrong</h1><p>${escapeHtml(message)}</p>`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

const count = (n: number) => n.toLocaleString('en-US');
