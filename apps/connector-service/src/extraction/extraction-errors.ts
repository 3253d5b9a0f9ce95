/** The file went past a limit (time, memory, text): the message is the reason to show. */
export class ExtractionLimitExceeded extends Error {}

/** No process could read the file (the pool was closed, or a process did not start): not the file's fault, so try it again later. */
export class ExtractionUnavailable extends Error {}
