import { serveRequests } from '../common/serve-requests';
import { ExtractionRequest, heldMemory } from './held-memory';
import { readText } from './read-text';

/** An extraction process (ExtractionPool's lanes): each request is one file, answered with its text and pages, or MEMORY_QUESTION. */
serveRequests<ExtractionRequest, unknown>((request) => ('memory' in request ? heldMemory() : readText(request)));
