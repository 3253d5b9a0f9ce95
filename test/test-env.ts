export const ADMIN_DB_URL_DEFAULT = 'postgres://postgres@127.0.0.1:5432/postgres';
