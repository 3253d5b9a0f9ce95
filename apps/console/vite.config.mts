import { defineConfig } from 'vite';

const here = decodeURIComponent(new URL('.', import.meta.url).pathname);
/** The services' response views and the selection rules: pure TypeScript, nothing server-side. */
const views = `${here}../../libs/contracts/src/views`;

/** The console: a static single-page app served by the connector-service under /console. */
export default defineConfig({
  root: here,
  base: '/console/',
  resolve: { alias: { '@app/contracts/views': `${views}/index.ts` } },
  server: { fs: { allow: [here, views] } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: { outDir: `${here}../../dist/console`, emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
  logLevel: 'warn',
});
