export * from './secret-cipher';
export * from './tokens';
export * from './crypto.module';
