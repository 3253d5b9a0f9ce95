/** OpenAPI schemas of the views (server only: they carry @nestjs/swagger decorators). */
import 'reflect-metadata';
export * from './error.response';
export * from './oauth.responses';
export * from './credential.responses';
export * from './data-source.responses';
export * from './sync-run.responses';
export * from './sync-run-file.responses';
export * from './document.responses';
export * from './approval.responses';
export * from './views-match';
