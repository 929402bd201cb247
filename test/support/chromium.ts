// Debian's Chromium driven by playwright-core, for the tests that need a real browser. When it is
// missing the tests say so in their skip reason; with CI set they fail instead (.ci/run installs it).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './processes.ts';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `false` when Chromium is there, else the reason to skip (under CI: never skipped, the launch fails). */
export const chromiumMissing: false | string =
  fs.existsSync(CHROMIUM) || process.env.CI
    ? false
    : `Chromium is not installed at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) to run the browser tests`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
}

/**
 * A page in a fresh profile (empty storage) with a CDP virtual authenticator standing in for a
 * passkey (a platform authenticator that verifies its user), its script errors collected in `errors`.
 */
export async function pageWithPasskey(browser: Browser, errors: string[], timeoutMs: number): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(timeoutMs);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

/** A test/support/ file (an app and the SDKs it imports) as one script for a page. */
export async function bundleForPage(file: string): Promise<string> {
  const bundled = await build({
    entryPoints: [path.join(ROOT, 'test', 'support', file)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}

/** Serves a page titled `title` running `script` on loopback; the page's origin is the address it is reached by. */
export async function servePage(script: Promise<string>, title: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    if (request.url === '/app.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(await script);
    } else if (request.url === '/') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><meta charset="utf-8"><title>${title}</title><script src="/app.js"></script>`);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
