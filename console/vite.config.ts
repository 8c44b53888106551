import { defineConfig } from 'vite';

// The console is served by the GraphQL server: index.html at / and /q/console (no-cache), everything else under
// /q/console/assets/ with content hashes in the names (cached for a year, immutable). No plugin: esbuild compiles
// Preact's JSX directly.
export default defineConfig({
  root: import.meta.dirname,
  base: '/q/console/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The polyfill would be an inline script, which the page's CSP (script-src 'self') forbids.
    modulePreload: { polyfill: false },
    manifest: false,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
