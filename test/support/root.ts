// The repository's root, where a test finds the files it reads (docs, sources, fixtures). A module of
// its own, so that a test that only reads files imports nothing that starts a process
// (scripts/unitTests.js: such a test is a unit test).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
