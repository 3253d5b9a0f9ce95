import { ExtractionPool } from '../../src/extraction/extraction-pool';

// Reads one file and never closes its pool: the process must still end by itself once the file is read.
void new ExtractionPool({ processes: 1 })
  .extract('text', Buffer.from('door D-12'))
  .then(({ text }) => process.stdout.write(text));
