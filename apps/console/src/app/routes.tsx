import { useEffect } from 'react';
import { ApprovalsPage } from '../approvals/approvals-page';
import { CredentialsPage } from '../credentials/credentials-page';
import { DataSourceView } from '../data-sources/data-source-view';
import { DataSourceWizard } from '../data-sources/data-source-wizard';
import { DataSourcesPage } from '../data-sources/data-sources-page';
import { ProvidersPage } from '../providers/providers-page';
import { SearchPage } from '../search/search-page';
import { match, navigate, usePath } from '../router/router';

export function Routes() {
  const path = usePath();
  useEffect(() => {
    if (path === '/') navigate('/data-sources');
  }, [path]);
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [path]);

  if (path === '/data-sources') return <DataSourcesPage />;
  if (path === '/data-sources/new') return <DataSourceWizard />;
  const source = match('/data-sources/:id', path);
  if (source) return <DataSourceView dataSourceId={source.id} />;
  if (path === '/search') return <SearchPage />;
  if (path === '/providers') return <ProvidersPage />;
  if (path === '/credentials') return <CredentialsPage />;
  if (path === '/approvals') return <ApprovalsPage />;
  const approval = match('/approvals/:id', path);
  if (approval) return <ApprovalsPage approvalId={approval.id} />;
  if (path === '/') return null;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page at {path}. <a href="/console/data-sources">Go to the data sources.</a>
      </p>
    </section>
  );
}
