/**
 * What the services answer over HTTP, as plain types, and the pure selection rules. The console imports
 * this folder alone (alias `@app/contracts/views`), so nothing here may import a package (lint:
 * `contract-views-are-plain`).
 */
export * from './error.view';
export * from './oauth.view';
export * from './credential.view';
export * from './selection-rules';
export * from './data-source.view';
export * from './sync-run.view';
export * from './sync-run-file.view';
export * from './document.view';
export * from './approval.view';
export * from './console.view';
