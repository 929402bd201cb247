// A SoftHSM2 token for the tests that hold the key-encryption key in an HSM: made once per test
// process in a temporary folder (its own SOFTHSM2_CONF), an AES-256 key made in it with the token's
// own tool (pkcs11-tool) as an operator does (docs/operations.md), removed when the process exits.
// SIGNET_TEST_KEK=softhsm makes every server of test/support/server.ts seal under it: `npm test`
// runs the wallet test files once more that way (scripts/hsm-tests.js lists them).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './root.ts';

export const SOFTHSM_MODULE = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so', '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so'].find((file) =>
  fs.existsSync(file),
);

/** Whether the tests' servers hold their KEK in SoftHSM2 (SIGNET_TEST_KEK=softhsm). */
export const testKekInSoftHsm = process.env.SIGNET_TEST_KEK === 'softhsm';

const PIN = 'test-pin-4417-never-shown';
const TOKEN = 'signet-test';

let made: { dir: string; conf: string } | undefined;

/** The token's folder and configuration, made on the first call; SOFTHSM2_CONF of this process names it. */
function token(): { dir: string; conf: string } {
  if (made) return made;
  if (SOFTHSM_MODULE === undefined) throw new Error('SoftHSM2 is not installed (apt-get install softhsm2 opensc), which SIGNET_TEST_KEK=softhsm needs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-test-hsm-'));
  const conf = path.join(dir, 'softhsm2.conf');
  fs.mkdirSync(path.join(dir, 'tokens'));
  fs.writeFileSync(conf, `directories.tokendir = ${path.join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--so-pin', '0000', '--pin', PIN], { stdio: 'ignore' });
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  made = { dir, conf };
  return made;
}

const keys = new Set<string>();

/**
 * The SIGNET_PKCS11_* settings of an AES-256 key labelled `keyLabel` in the test token, made on
 * first use (sensitive, not extractable). This process's SOFTHSM2_CONF names the token (a child inherits it).
 */
export function softHsmEnv(keyLabel = 'kek'): Record<string, string> {
  const { conf } = token();
  if (!keys.has(keyLabel)) {
    execFileSync('pkcs11-tool', ['--module', SOFTHSM_MODULE!, '--token-label', TOKEN, '--login', '--pin', PIN, '--keygen', '--key-type', 'AES:32', '--label', keyLabel, '--sensitive'], {
      env: { ...process.env, SOFTHSM2_CONF: conf },
      stdio: 'ignore',
    });
    keys.add(keyLabel);
  }
  return { SIGNET_PKCS11_MODULE: SOFTHSM_MODULE!, SIGNET_PKCS11_TOKEN_LABEL: TOKEN, SIGNET_PKCS11_PIN: PIN, SIGNET_PKCS11_KEY_LABEL: keyLabel };
}

/** Why a test cannot use SoftHSM2 here (it, its tool or the PKCS#11 binding missing), or undefined: the rule `npm test` follows (scripts/hsm-tests.js). */
export async function softHsmMissing(): Promise<string | undefined> {
  const rule = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'hsm-tests.js')).href)) as { softHsmMissing(): string | undefined };
  return rule.softHsmMissing();
}
