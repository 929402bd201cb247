// Debian's Chromium driven by playwright-core, for the tests that need a real browser. When it is
// missing the tests say so in their skip reason; with CI set they fail instead (.ci/run installs it).
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 20_000 });
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
