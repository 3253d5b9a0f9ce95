export * from './principal';
export * from './auth.decorators';
export * from './token-verifier';
export * from './platform-auth.guard';
export * from './auth.module';
export * from './tenant-scope';
export * from './dev-token';
