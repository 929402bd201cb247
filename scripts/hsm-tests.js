// The test files `npm test` runs a second time with wallet keys sealed under a key of a SoftHSM2 token
// (SIGNET_TEST_KEK=softhsm, test/support/softhsm.ts), declared once: those about wallets, private
// keys, signing, export and import that start a server. A new such file is in the list by its name.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { testFiles } from './unit-tests.js';

export const HSM_TEST_NAMES = /^(wallet|privateKey|signRawPayload|subOrganizationWallet)\w*\.test\.ts$/;

/** The names of the test files to run again with the key-encryption key in SoftHSM2. */
export const hsmTests = () =>
  testFiles()
    .filter((file) => file.starts.includes('src/server.ts') && HSM_TEST_NAMES.test(file.name))
    .map((file) => file.name);

const MODULES = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so', '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so'];

/** Why these runs cannot happen here (SoftHSM2, its tool or the PKCS#11 binding missing), or undefined when they can. */
export function softHsmMissing() {
  const has = (tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (!has('softhsm2-util') || !MODULES.some((file) => fs.existsSync(file))) return 'SoftHSM2 is not installed (apt-get install softhsm2 opensc)';
  if (!has('pkcs11-tool')) return 'pkcs11-tool is not installed (apt-get install opensc)';
  try {
    execFileSync(process.execPath, ['-e', "require('pkcs11js')"], { stdio: 'ignore' });
  } catch {
    return 'the optional PKCS#11 binding pkcs11js is not built (npm rebuild pkcs11js)';
  }
  return undefined;
}
