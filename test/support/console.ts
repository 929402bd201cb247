// The console in a real Chromium: a Signet test server reached at http://localhost:<port> (a secure
// context, and the WebAuthn relying party the console's passkeys are made for), its page opened, and
// the checks every console view owes: sign-in with an API key, no horizontal scroll at 375 and 1280
// pixels (nor in a table at 375), every control reached by the keyboard and labelled, and screenshots for the docs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { TestDatabase } from './databases.ts';
import { ensureCompiled, freePort, ROOT } from './processes.ts';
import { startTestServer, type Credentials, type TestServer } from './server.ts';

export interface ConsoleServer extends TestServer {
  /** http://localhost:<port>: the origin the console is opened at (SIGNET_WEBAUTHN_ORIGINS). */
  origin: string;
}

/** A Signet test server whose passkeys are for localhost and its own origin; dist/console built first. */
export async function startConsoleServer(tdb: TestDatabase, env: Record<string, string> = {}): Promise<ConsoleServer> {
  ensureCompiled();
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const server = await startTestServer(tdb, {
    SIGNET_PORT: String(port),
    SIGNET_OUTBOX_WORKER: 'false',
    SIGNET_WEBAUTHN_RP_ID: 'localhost',
    SIGNET_WEBAUTHN_ORIGINS: origin,
    ...env,
  });
  return Object.assign(server, { origin });
}

/** Opens the console at `urlPath` (under /console) and waits for its first screen. */
export async function openConsole(page: Page, origin: string, urlPath = '/console'): Promise<void> {
  await page.goto(`${origin}${urlPath}`);
  await page.locator('h1').first().waitFor();
}

/** Signs in on the sign-in screen with the API key, as a person types it; waits for the shell. */
export async function signInWithApiKey(page: Page, credentials: Pick<Credentials, 'organizationId' | 'apiPublicKey' | 'apiPrivateKey'>): Promise<void> {
  await page.getByLabel('Organization ID').fill(credentials.organizationId);
  await page.getByLabel('API public key (hex)').fill(credentials.apiPublicKey);
  await page.getByLabel('API private key (hex)').fill(credentials.apiPrivateKey);
  await page.getByRole('button', { name: 'Sign in with the API key' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Signs in with the passkey the page's virtual authenticator holds; waits for the shell. */
export async function signInWithPasskey(page: Page, organizationId: string): Promise<void> {
  await page.getByLabel('Organization ID').fill(organizationId);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the Signet console' }).waitFor();
}

/** The width of a phone the console must fit. */
export const PHONE_WIDTH = 375;

/**
 * The page at 375 and at 1280 pixels wide: nothing wider than the window; at 375 px no table scrolls
 * sideways either, and every cell of every table lies within the window.
 */
export async function checkNoHorizontalScroll(page: Page): Promise<void> {
  const before = page.viewportSize();
  try {
    for (const width of [PHONE_WIDTH, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(sizes.scroll <= sizes.client, `at ${width} px the page is ${sizes.scroll} px wide, wider than its ${sizes.client} px window`);
      if (width !== PHONE_WIDTH) continue;
      const outside = await page.evaluate((limit) =>
        Array.from(document.querySelectorAll('.table-box')).flatMap((box) => {
          const name = box.getAttribute('aria-label');
          const problems = box.scrollWidth > box.clientWidth ? [`${name} scrolls sideways (${box.scrollWidth} px in ${box.clientWidth})`] : [];
          for (const cell of Array.from(box.querySelectorAll('tbody th, tbody td'))) {
            const { left, right, width: cellWidth } = cell.getBoundingClientRect();
            if (cellWidth > 0 && (left < 0 || right > limit)) problems.push(`${name}: "${(cell.textContent ?? '').slice(0, 40)}" spans ${Math.round(left)} to ${Math.round(right)} px`);
          }
          return problems;
        }),
      width);
      assert.deepEqual(outside, [], `at ${width} px every table's cells are within the window`);
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/** At 375 px by 800, each of `elements`, scrolled to (down, never sideways), is wholly within the window. */
export async function checkShownOnPhone(page: Page, elements: Record<string, Locator>): Promise<void> {
  const before = page.viewportSize();
  try {
    await page.setViewportSize({ width: PHONE_WIDTH, height: 800 });
    for (const [what, element] of Object.entries(elements)) {
      await element.scrollIntoViewIfNeeded();
      const box = await element.boundingBox();
      assert.ok(box, `${what} is shown at ${PHONE_WIDTH} px`);
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE_WIDTH, `${what} spans ${Math.round(box.x)} to ${Math.round(box.x + box.width)} px, outside the ${PHONE_WIDTH} px window`);
      // Within a pixel: scrolled to its nearest edge, a box whose height is fractional ends up to a pixel past it (800.47 px).
      assert.ok(box.y >= -1 && box.y + box.height <= 801, `${what} is within the window once scrolled to (${box.y.toFixed(1)} to ${(box.y + box.height).toFixed(1)} px)`);
      assert.equal(await page.evaluate(() => window.scrollX), 0, `showing ${what} scrolls nothing sideways`);
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/**
 * Tabs through the page from its start: every visible button, link, input, select and textarea is
 * focused at some point, and each has an accessible name (its label, text or aria-label).
 */
export async function checkKeyboardAndLabels(page: Page): Promise<void> {
  // (No named function inside page.evaluate: the test runner's transform would name it with a helper the page lacks.)
  const controls = await page.evaluate(() => {
    const all = Array.from(document.querySelectorAll('a[href], button, input, select, textarea')).filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden' && !(element as HTMLButtonElement).disabled;
    });
    all.forEach((element, i) => element.setAttribute('data-control', String(i)));
    return all.length;
  });
  assert.ok(controls > 0, 'the page has controls');
  const nameless: string[] = [];
  for (let i = 0; i < controls; i++) {
    const control = page.locator(`[data-control="${i}"]`);
    const name = await control.evaluate((element) => {
      const labels = (element as HTMLInputElement).labels;
      const label = labels && labels.length > 0 ? Array.from(labels).map((l) => l.textContent ?? '').join(' ') : '';
      return (element.getAttribute('aria-label') ?? '') || label || (element.textContent ?? '').trim() || element.getAttribute('title') || '';
    });
    if (!name.trim()) nameless.push(await control.evaluate((element) => element.outerHTML.slice(0, 120)));
  }
  assert.deepEqual(nameless, [], 'every control has an accessible name');

  const reached = new Set<string>();
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  await page.locator('body').focus();
  for (let step = 0; step < controls * 2 + 10 && reached.size < controls; step++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-control') ?? null);
    if (focused !== null) reached.add(focused);
  }
  const missed: string[] = [];
  for (let i = 0; i < controls; i++) {
    if (!reached.has(String(i))) missed.push(await page.locator(`[data-control="${i}"]`).evaluate((element) => element.outerHTML.slice(0, 120)));
  }
  assert.deepEqual(missed, [], 'every control is reached with Tab');
}

/**
 * A screenshot of the page: docs/images/console-<name>.png when SIGNET_SCREENSHOTS=update (run once
 * to refresh the docs' pictures), else in a temporary folder; returns the path written.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const folder = process.env.SIGNET_SCREENSHOTS === 'update' ? path.join(ROOT, 'docs', 'images') : fs.mkdtempSync(path.join(os.tmpdir(), 'signet-console-'));
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `console-${name}.png`);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur()); // no focus ring in the picture
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
