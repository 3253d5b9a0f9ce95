import { defineConfig } from 'vite';

const here = decodeURIComponent(new URL('.', import.meta.url).pathname);

/** The console: a static single-page app served by the connector-service under /console. */
export default defineConfig({
  root: here,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: `${here}../../dist/console`, emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
  logLevel: 'warn',
});
