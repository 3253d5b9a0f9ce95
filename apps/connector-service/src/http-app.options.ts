import type { HttpAppOptions } from '@app/http';

/** The title and description of this service's OpenAPI document (/docs, and `npm run lint`'s dump). */
export const HTTP_APP_OPTIONS: HttpAppOptions = {
  title: 'Connector service',
  description: 'OAuth connectors, document-system data sources, ingestion and search.',
};
