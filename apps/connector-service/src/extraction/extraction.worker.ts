import { serveRequests } from '../common/serve-requests';
import { readText } from './read-text';

/** An extraction process (ExtractionPool's lanes): each request is one file, answered with its text and pages. */
serveRequests(readText);
