/** The approval-service started by its main.ts in a child process of a test (startChildApp), as production starts it. */
import { runMainAsChild } from '@app/testing';

runMainAsChild(() => require('../../src/main'));
