import { FormEvent, ReactNode, useState } from 'react';
import { Button } from '../ui/controls';
import { useConsole } from '../session/console-context';
import { Link, usePath } from '../router/router';
import { ShortId, shortId } from '../ui/ids';

const NAV = [
  { to: '/data-sources', label: 'Data sources' },
  { to: '/search', label: 'Search' },
  { to: '/providers', label: 'OAuth connectors' },
  { to: '/credentials', label: 'Credentials' },
  { to: '/approvals', label: 'Approvals' },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Header with the sections, the project in use and the signed-in person. */
export function Shell({
  children,
  onSignOut,
  onProjectChange,
}: {
  children: ReactNode;
  onSignOut: () => void;
  onProjectChange: (projectId: string) => void;
}) {
  const { session, projectId } = useConsole();
  const path = usePath();
  const [draft, setDraft] = useState(projectId);
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!UUID.test(draft.trim())) return setProblem('A project id is a UUID');
    setProblem('');
    onProjectChange(draft.trim());
  };
  return (
    <div className="shell">
      <header className="top">
        <div className="brand">Connector console</div>
        <nav aria-label="Sections">
          {NAV.map((item) => (
            <Link
              key={item.to}
              to={item.to}
              className="nav-link"
              current={path === item.to || path.startsWith(`${item.to}/`)}
            >
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="who">
          <span title={`user ${session.userId}, tenant ${session.tenantId}`} data-testid="signed-in-as">
            {session.displayName ?? shortId(session.userId)} ·{' '}
            {session.roles.length ? session.roles.join(', ') : 'no role'}
          </span>
          <Button kind="link" onClick={onSignOut}>
            Sign out
          </Button>
        </div>
      </header>
      <form className="project-bar" onSubmit={submit}>
        <label htmlFor="project-id">Project</label>
        <input
          id="project-id"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          spellCheck={false}
          aria-invalid={problem ? true : undefined}
        />
        <Button type="submit" disabled={draft.trim() === projectId}>
          Use project
        </Button>
        {problem ? (
          <span className="field-problems">{problem}</span>
        ) : (
          <span className="muted" data-testid="tenant">
            tenant <ShortId id={session.tenantId} what="tenant" />
          </span>
        )}
      </form>
      <main className="content">{children}</main>
    </div>
  );
}
