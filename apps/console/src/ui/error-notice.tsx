import { ReactNode } from 'react';
import { guidanceFor } from '../api/error-guidance';

/** An error as a person reads it: what happened, then what to do. */
export function ErrorNotice({ error, children, title }: { error: unknown; children?: ReactNode; title?: string }) {
  if (!error) return null;
  const guidance = guidanceFor(error);
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title ?? guidance.title}</p>
      <p className="notice-action">
        <span className="what-to-do">What to do:</span> {guidance.action}
      </p>
      {children ? <div className="notice-buttons">{children}</div> : null}
    </div>
  );
}

export function Notice({
  kind = 'info',
  title,
  children,
}: {
  kind?: 'info' | 'warning' | 'success';
  title: string;
  children?: ReactNode;
}) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'warning' ? 'alert' : 'status'}>
      <p className="notice-title">{title}</p>
      {children}
    </div>
  );
}
