// Bundles the explorer pages into dist/, which the Go server embeds: `make explorer` runs it.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
await build({
  entryPoints: ['src/explorer.js'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'linked',
  outdir: 'dist',
  logLevel: 'warning',
});
copyFileSync('src/explorer.css', 'dist/explorer.css');
