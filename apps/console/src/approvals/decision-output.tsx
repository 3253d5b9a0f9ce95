/** As much of a decision's output as the console shows; the rest is counted (the service takes up to 64 KiB). */
export const OUTPUT_SHOWN_CHARS = 16_384;

/**
 * The JSON object a decider handed back to the agent with the decision, pretty-printed. Shown as text,
 * so nothing in it can become markup; long output is cut, and says so, instead of growing the page.
 */
export function DecisionOutput({ output }: { output: Record<string, unknown> }) {
  const pretty = JSON.stringify(output, null, 2);
  const cut = pretty.length > OUTPUT_SHOWN_CHARS;
  // Never cut between the two halves of a surrogate pair.
  const end =
    cut && /[\uD800-\uDBFF]/.test(pretty[OUTPUT_SHOWN_CHARS - 1]) ? OUTPUT_SHOWN_CHARS - 1 : OUTPUT_SHOWN_CHARS;
  return (
    <div className="decision-output">
      <span className="muted small">Output handed to the agent</span>
      <pre aria-label="Decision output">{cut ? `${pretty.slice(0, end)}\n…` : pretty}</pre>
      {cut ? (
        <p className="muted small">
          Shortened: the first {end.toLocaleString('en-US')} of {pretty.length.toLocaleString('en-US')} characters.
        </p>
      ) : null}
    </div>
  );
}
