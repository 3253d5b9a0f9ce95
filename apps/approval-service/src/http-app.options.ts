import type { HttpAppOptions } from '@app/http';

/** The title and description of this service's OpenAPI document (/docs, and `npm run lint`'s dump). */
export const HTTP_APP_OPTIONS: HttpAppOptions = {
  title: 'Approval service',
  description: 'Webhook approval step: pause an agent run, deliver the request, wait for the callback.',
};
