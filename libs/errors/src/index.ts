export * from './domain.exception';
export * from './body-policy';
export * from './validation';
export * from './error-body';
export * from './all-exceptions.filter';
export * from './infrastructure-error';
export * from './query-parameters';
export * from './http-reply';
