// Key-encryption keys side by side (npm run bench:kek): per second and per operation, one at a time and
// 16 at once, the wrap+unwrap round trip of a 32-byte data key, and the seal+open of a wallet's
// mnemonic (sealKeyMaterial then openKeyMaterial: what creating a wallet and signing with it cost in
// custody), for the KEK derived from the deployment secret and for the one held in a SoftHSM2 token
// through PKCS#11 (a token made here in a temporary folder, the key made with pkcs11-tool), each
// behind the key ring a server uses. Prints one line per KEK, operation and way (docs/benchmarks.md,
// "KEK sources").
//   npm run bench:kek [-- --seconds 2]
// Needs SoftHSM2 and opensc (apt-get install -y softhsm2 opensc) for the second KEK.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openPkcs11Kek } from '../src/hsm/pkcs11Kek.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import type { KeyEncryptionKey } from '../src/keys/custody/keyEncryptionKey.ts';
import { keyRing } from '../src/keys/custody/keyRing.ts';
import { openKeyMaterial, sealKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const seconds = Number(values.seconds);
const MODULE = '/usr/lib/softhsm/libsofthsm2.so';

const MNEMONIC = Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow');
const CONTEXT = { organizationId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90', rowId: '2b6f0cc9-4a7e-4c1d-9f3e-8d5a1b2c3d4e', kind: 'wallet_mnemonic' };

/** The two operations measured: a data key's wrap and unwrap, a mnemonic's seal and open. */
const OPERATIONS: Record<string, (kek: KeyEncryptionKey) => () => Promise<void>> = {
  'wrap+unwrap': (kek) => {
    const dataKey = randomBytes(32);
    return async () => {
      const back = await kek.unwrap(await kek.wrap(dataKey));
      if (!Buffer.from(back).equals(dataKey)) throw new Error('the data key came back different');
    };
  },
  'seal+open': (kek) => async () => {
    const opened = await openKeyMaterial(kek, CONTEXT, await sealKeyMaterial(kek, CONTEXT, MNEMONIC));
    if (!opened.equals(MNEMONIC)) throw new Error('the mnemonic came back different');
    opened.fill(0);
  },
};

async function measure(name: string, kek: KeyEncryptionKey, parallel: number): Promise<void> {
  for (const [operation, make] of Object.entries(OPERATIONS)) {
    const roundTrip = make(kek);
    for (let i = 0; i < 50; i++) await roundTrip(); // warm up
    let count = 0;
    const start = process.hrtime.bigint();
    const end = start + BigInt(Math.round(seconds * 1e9));
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (process.hrtime.bigint() < end) {
          await roundTrip();
          count++;
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    const perSecond = count / elapsed;
    console.log(
      `${name.padEnd(34)} ${operation.padEnd(11)} ${String(parallel).padStart(2)} at once  ${perSecond.toFixed(0).padStart(8)}/s  ${((1e6 / perSecond) * parallel).toFixed(1).padStart(8)} µs each`,
    );
  }
}

const secretKek = deploymentSecretKek(randomBytes(32));
await measure('deployment secret (AES-GCM, node)', keyRing(secretKek), 1);
await measure('deployment secret (AES-GCM, node)', keyRing(secretKek), 16);

if (!fs.existsSync(MODULE)) {
  console.log(`SoftHSM2: not measured (${MODULE} is missing: apt-get install -y softhsm2 opensc)`);
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-kek-bench-'));
  try {
    fs.mkdirSync(path.join(dir, 'tokens'));
    const conf = path.join(dir, 'softhsm2.conf');
    fs.writeFileSync(conf, `directories.tokendir = ${path.join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
    process.env.SOFTHSM2_CONF = conf;
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'bench', '--so-pin', '0000', '--pin', '1234'], { stdio: 'ignore' });
    execFileSync('pkcs11-tool', ['--module', MODULE, '--token-label', 'bench', '--login', '--pin', '1234', '--keygen', '--key-type', 'AES:32', '--label', 'kek', '--sensitive'], { stdio: 'ignore' });
    const kek = await openPkcs11Kek({ module: MODULE, tokenLabel: 'bench', pin: '1234', keyLabel: 'kek' });
    try {
      await measure('SoftHSM2 (AES-GCM in the token)', keyRing(kek, secretKek), 1);
      await measure('SoftHSM2 (AES-GCM in the token)', keyRing(kek, secretKek), 16);
    } finally {
      await kek.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
