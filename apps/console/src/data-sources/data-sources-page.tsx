import { useConsole } from '../session/console-context';
import { Link, navigate } from '../router/router';
import { Button, Spinner, StatusBadge } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { formatTime } from '../ui/format';
import { useLoad } from '../ui/hooks';

/** The project's data sources with their ingestion status. */
export function DataSourcesPage() {
  const { connector, projectId } = useConsole();
  const sources = useLoad(() => connector.dataSources.list(projectId), [connector, projectId]);
  return (
    <section>
      <div className="page-head">
        <h1>Data sources</h1>
        <Button kind="primary" onClick={() => navigate('/data-sources/new')}>
          New data source
        </Button>
      </div>
      <ErrorNotice error={sources.error}>
        <Button onClick={() => void sources.reload()}>Try again</Button>
      </ErrorNotice>
      {sources.loading && !sources.data ? <Spinner label="Loading data sources…" /> : null}
      {sources.data && !sources.data.length ? (
        <p className="empty">
          This project has no data source yet. Create one to connect a document system and pick folders.
        </p>
      ) : null}
      {sources.data?.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Folders</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {sources.data.map((ds) => (
                <tr key={ds.id}>
                  <td>
                    <Link to={`/data-sources/${ds.id}`}>{ds.name}</Link>
                  </td>
                  <td>
                    <StatusBadge status={ds.ingestionStatus} />
                  </td>
                  <td>
                    {ds.selection.include.length} included, {ds.selection.exclude.length} excluded
                  </td>
                  <td>{formatTime(ds.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
