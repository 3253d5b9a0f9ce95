export * from './domain.exception';
export * from './validation';
export * from './error-body';
export * from './all-exceptions.filter';
