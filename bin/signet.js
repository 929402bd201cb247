#!/usr/bin/env node
// Entry point of the `signet` binary: runs the CLI compiled into dist/ by `npm install` (npm run build).
import fs from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!fs.existsSync(cli)) {
  // Installed with --ignore-scripts, or dist/ was deleted: say so rather than show a module stack trace.
  console.error('signet: dist/ is missing, the compiled service is not built: run `npm run build`');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
