export * from './configure-http-app';
