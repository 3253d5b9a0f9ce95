export * from './body-limits';
export * from './configure-http-app';
export * from './fastify-bodies';
export * from './fastify-http';
export * from './serving-state';
