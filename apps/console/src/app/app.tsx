import { useCallback, useState } from 'react';
import { loadConsoleConfig } from '../api/console-config';
import { SignInPage } from '../sign-in/sign-in-page';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useLoad } from '../ui/hooks';
import { ConsoleProvider } from '../session/console-context';
import { Routes } from './routes';
import { Session, storedProjectId, storedSession, storeProjectId, storeSession } from '../session/session';
import { Shell } from './shell';

export function App() {
  const config = useLoad(loadConsoleConfig, []);
  const [session, setSession] = useState<Session | null>(storedSession);
  const [ended, setEnded] = useState(false);
  const [projectId, setProjectId] = useState(storedProjectId);

  const signIn = (next: Session | null) => {
    storeSession(next);
    setSession(next);
    setEnded(false);
  };
  const onUnauthenticated = useCallback(() => {
    storeSession(null);
    setSession(null);
    setEnded(true);
  }, []);
  const changeProject = (next: string) => {
    storeProjectId(next);
    setProjectId(next);
  };

  if (config.error) {
    return (
      <main className="sign-in">
        <h1>Connector console</h1>
        <ErrorNotice error={config.error}>
          <Button onClick={() => void config.reload()}>Try again</Button>
        </ErrorNotice>
      </main>
    );
  }
  if (!config.data) return <Spinner label="Loading the console…" />;
  if (!session) return <SignInPage config={config.data} onSignedIn={signIn} ended={ended} />;
  return (
    <ConsoleProvider config={config.data} session={session} projectId={projectId} onUnauthenticated={onUnauthenticated}>
      <Shell onSignOut={() => signIn(null)} onProjectChange={changeProject}>
        <Routes />
      </Shell>
    </ConsoleProvider>
  );
}
