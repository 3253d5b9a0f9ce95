export * from './test-env';
export * from './tokens';
export * from './http-peer';
export * from './eventually';
export * from './child-app';
export * from './simulator';
export * from './isolated-database';
