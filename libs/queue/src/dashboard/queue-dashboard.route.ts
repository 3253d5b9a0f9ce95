/** Where each service serves Bull Board (admins only). */
export const QUEUE_DASHBOARD_ROUTE = '/admin/queues';
