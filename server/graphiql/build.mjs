// Bundles the pinned packages into dist/, which the Go server embeds: `make graphiql` runs it.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
await build({
  entryPoints: ['src/graphiql.jsx'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'linked',
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.woff2': 'dataurl', '.png': 'dataurl', '.svg': 'dataurl' },
  outdir: 'dist',
  logLevel: 'warning',
});
await build({
  entryPoints: ['src/docs.js'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  outdir: 'dist',
  logLevel: 'warning',
});
for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
  copyFileSync(`node_modules/swagger-ui-dist/${f}`, `dist/${f}`);
}
