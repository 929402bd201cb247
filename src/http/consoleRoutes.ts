// The console (GET /console): a single-page app built by scripts/build.js into dist/console/ and
// served from there. Every /console/<path> outside assets/ answers the page, so a link such as
// /console/activities/<id> opens in it; /console/assets/<file> are the bundle's files, whose names
// carry their content's hash (cached for good). A strict Content-Security-Policy: the page loads only
// this origin's script and stylesheet and talks only to this origin, where it stamps every request
// with the signed-in user's credential like any client. The console has no route or power of its own.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../errors.ts';

/** dist/console/, beside this module's dist/ (compiled) or the package's dist/ (run from source). */
const FOLDER = fileURLToPath(new URL('../../dist/console/', import.meta.url));

export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The built page and the names of its assets, read at the first request. */
let built: { page: string; assets: Set<string> } | undefined;
function consoleFiles(): { page: string; assets: Set<string> } {
  if (!built) {
    const page = fs.readFileSync(path.join(FOLDER, 'index.html'), 'utf8');
    const assets = new Set(fs.readdirSync(path.join(FOLDER, 'assets')).filter((name) => Object.hasOwn(TYPES, path.extname(name))));
    built = { page, assets };
  }
  return built;
}

function notBuilt(): never {
  throw notFound('ROUTE_NOT_FOUND', 'the console is not built in this installation: run `npm run build`, which writes dist/console/');
}

function sendPage(reply: FastifyReply) {
  let page: string;
  try {
    page = consoleFiles().page;
  } catch {
    notBuilt();
  }
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(page);
}

export function registerConsoleRoutes(app: FastifyInstance) {
  app.get('/console', async (_request, reply) => sendPage(reply));

  // History routing: any page of the console is the page itself; the script reads the path.
  app.get('/console/*', async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    if (rest === 'assets' || rest.startsWith('assets/')) {
      throw notFound('ROUTE_NOT_FOUND', `no file ${rest.slice(0, 100)} in /console/assets`);
    }
    return sendPage(reply);
  });

  app.get('/console/assets/:file', async (request, reply) => {
    const name = (request.params as { file: string }).file;
    let assets: Set<string>;
    try {
      assets = consoleFiles().assets;
    } catch {
      notBuilt();
    }
    if (!assets.has(name)) throw notFound('ROUTE_NOT_FOUND', `no file ${name.slice(0, 100)} in /console/assets; the console is at /console`);
    // The name changes with the content: a file is never replaced under the same name.
    return reply
      .type(TYPES[path.extname(name)]!)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(fs.createReadStream(path.join(FOLDER, 'assets', name)));
  });
}
