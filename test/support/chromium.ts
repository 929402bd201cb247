// Debian's Chromium driven by playwright-core, for the tests that need a real browser. When it is
// missing the tests say so in their skip reason; with CI set they fail instead (.ci/run installs it).
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
