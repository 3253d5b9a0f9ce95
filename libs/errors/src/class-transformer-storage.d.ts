/**
 * class-transformer keeps the @Type() of every nested field in this store; its entry point does not
 * export it, and the file has no types of its own beside it.
 */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
