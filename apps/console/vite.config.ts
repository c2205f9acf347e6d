import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web console (spec section 12.2), built by `npm run build` into `dist/console`, which the
 * server serves under `/console` with a strict Content-Security-Policy: so every byte is a
 * file of its own (no inlined asset, no inline script), and nothing comes from another origin.
 */
export default defineConfig({
  root: here,
  base: '/console/',
  // No dev-time `public/` folder: every file is emitted under assets/, named by its hash.
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // Modern browsers only: native modules and module preloading need no polyfill (an inline one would break the CSP).
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: true,
  },
});
