/**
 * The connector's main thread runs with its old generation capped (`node --max-old-space-size=512`): every
 * launch in this repository passes this flag (heap-cap.spec.ts checks them). Under V8's default cap (4 GB on
 * a large machine) the heap may grow to about four times what it holds before a full collection, and a
 * worker's main thread holds about 50 MB: during a full sync it reached 190 MB, and the worker's RSS
 * 415 MB. A cap under 2 GB makes V8 collect sooner (at about 1.4 times what it holds at 512 MB); 512 MB
 * is ten times what the main thread holds, and keeps it with two extraction processes (256 MB each) inside
 * the worker container's 1 GiB (docs/ingestion.md, "Memory").
 */
export const MAIN_HEAP_FLAG = '--max-old-space-size=512';

/**
 * A process that runs only as a worker collects garbage on the thread that made it, not on V8's helper
 * threads as well: its extraction threads allocate fast in small young generations, and parallel scavenges
 * cost more CPU in the helpers than they save. In three alternated pairs of `bench:ingest` (1,000 files) the
 * worker's other threads fell from 32–37 % of the extract baseline's CPU to 10–13 %, all CPU until
 * searchable from 1.92–2.14× the baseline's to 1.49–1.73×, and the time until searchable from 1.90–2.13× to
 * 1.49–1.73× (docs/ingestion.md). Extraction has since moved to processes of its own, which take this flag
 * themselves (common/process-lane.ts); the worker keeps it. Not for a process that also answers the API: pauses on its event loop
 * were not measured.
 */
export const WORKER_GC_FLAG = '--single-threaded-gc';
