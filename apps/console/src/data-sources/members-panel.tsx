import { FormEvent, useState } from 'react';
import { useConsole } from '../session/console-context';
import { Button, TextField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { formatTime } from '../ui/format';
import { Person } from '../ui/ids';
import { useAction, useLoad } from '../ui/hooks';

/** Who may read the data source (its creator, plus those added; tenant admins see all). */
export function MembersPanel({ dataSourceId }: { dataSourceId: string }) {
  const { connector, session } = useConsole();
  const members = useLoad(() => connector.dataSources.members(dataSourceId), [connector, dataSourceId]);
  const [userId, setUserId] = useState('');
  const action = useAction();
  const add = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await connector.dataSources.addMember(dataSourceId, userId.trim());
      setUserId('');
      await members.reload();
    });
  };
  const remove = (id: string) =>
    action.run(async () => (await connector.dataSources.removeMember(dataSourceId, id), await members.reload()));
  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ErrorNotice error={members.error ?? action.error} />
      <ul className="members">
        {(members.data ?? []).map((m) => (
          <li key={m.userId}>
            <Person userId={m.userId} you={session} />{' '}
            <span className="muted small">added {formatTime(m.createdAt)}</span>
            <Button kind="link" onClick={() => void remove(m.userId)} disabled={action.busy}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form className="row row-end" onSubmit={add}>
        <TextField label="Add a member (user id)" value={userId} onChange={setUserId} />
        <Button type="submit" busy={action.busy} busyLabel="Adding…" disabled={!userId.trim()}>
          Add
        </Button>
      </form>
    </section>
  );
}
