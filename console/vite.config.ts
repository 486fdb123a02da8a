import { defineConfig } from 'vite';

// The console is a static single-page app on the API's origin. Its build goes to console/dist, which
// the local front door (local/front-door.ts) and the deploy (console/deploy) serve as they are.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  // React's automatic JSX runtime through Vite's own transformer; no plugin is needed for a build.
  // Production JSX and React's production build whatever NODE_ENV the caller has (jest sets 'test',
  // and the two must agree: development JSX calls jsxDEV, which React's production build lacks).
  mode: 'production',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react', development: false } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // A source map would publish the sources; the console is open source anyway, but the bundle is
    // what is reviewed for secrets, so none is shipped.
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
