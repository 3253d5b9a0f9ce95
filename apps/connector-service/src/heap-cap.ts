/**
 * The connector's main thread runs with its old generation capped (`node --max-old-space-size=512`): every
 * launch in this repository passes this flag (heap-cap.spec.ts checks them). Under V8's default cap (4 GB on
 * a large machine) the heap may grow to about four times what it holds before a full collection, and a
 * worker's main thread holds about 50 MB: during a full sync it reached 190 MB, and the worker's RSS
 * 415 MB. A cap under 2 GB makes V8 collect sooner (at about 1.4 times what it holds at 512 MB); 512 MB
 * is ten times what the main thread holds, and keeps it with two extraction threads (256 MB each) inside
 * the worker container's 1 GiB (docs/ingestion.md, "Memory").
 */
export const MAIN_HEAP_FLAG = '--max-old-space-size=512';
