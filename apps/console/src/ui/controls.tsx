import { ButtonHTMLAttributes, ReactNode, useId, useState } from 'react';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  busy?: boolean;
  busyLabel?: string;
  kind?: 'primary' | 'secondary' | 'danger' | 'link';
};

/** A button that shows it is working and cannot be pressed twice meanwhile. */
export function Button({
  busy,
  busyLabel,
  kind = 'secondary',
  children,
  className,
  disabled,
  type = 'button',
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={`button button-${kind} ${className ?? ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy ? (
        <>
          <span className="spinner" aria-hidden="true" /> {busyLabel ?? 'Working…'}
        </>
      ) : (
        children
      )}
    </button>
  );
}

interface FieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problems?: string[];
  hint?: ReactNode;
  type?: string;
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
  name?: string;
}

/** A labelled input with its hint and, next to it, the service's problems with it. */
export function TextField({
  label,
  value,
  onChange,
  problems,
  hint,
  type = 'text',
  required,
  placeholder,
  autoComplete,
  name,
}: FieldProps) {
  const id = useId();
  const described =
    [hint ? `${id}-hint` : '', problems?.length ? `${id}-problems` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${problems?.length ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required={required}
        placeholder={placeholder}
        autoComplete={autoComplete ?? 'off'}
        aria-invalid={problems?.length ? true : undefined}
        aria-describedby={described}
      />
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <FieldProblems id={`${id}-problems`} problems={problems} />
    </div>
  );
}

export function SelectField<T extends string>(props: {
  label: string;
  value: T;
  onChange: (value: T) => void;
  options: Array<{ value: T; label: string }>;
  problems?: string[];
  hint?: ReactNode;
  required?: boolean;
}) {
  const id = useId();
  return (
    <div className={`field ${props.problems?.length ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        required={props.required}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value as T)}
        aria-invalid={props.problems?.length ? true : undefined}
        aria-describedby={props.problems?.length ? `${id}-problems` : undefined}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint ? <p className="field-hint">{props.hint}</p> : null}
      <FieldProblems id={`${id}-problems`} problems={props.problems} />
    </div>
  );
}

export function FieldProblems({ id, problems }: { id?: string; problems?: string[] }) {
  if (!problems?.length) return null;
  return (
    <ul className="field-problems" id={id}>
      {problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

/** A value to copy (a redirect URI): shown whole, with a button that copies it. */
export function CopyValue({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div className="copy-value">
      <span className="copy-label">{label}</span>
      <code className="copy-text">{value}</code>
      <Button kind="link" onClick={copy} aria-label={`Copy ${label}`}>
        Copy
      </Button>
      <span className="copy-state" role="status">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select the text and copy it by hand' : ''}
      </span>
    </div>
  );
}

export function Spinner({ label }: { label: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{spaced(status)}</span>;
}

/** `NeedsReauth` → `Needs reauth`, `PartiallySynced` → `Partially synced`. */
export function spaced(value: string): string {
  return value.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
}
