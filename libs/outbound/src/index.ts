export * from './address-ranges';
export * from './guarded-agents';
export * from './outbound-url-policy';
export * from './settles-within';
