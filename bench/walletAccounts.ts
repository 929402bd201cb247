// A micro-benchmark of a wallet's accounts derived from its seed and each one's key sealed (the CPU
// part of create_wallet and create_wallet_accounts, run on the event loop; the KEK derived from a
// deployment secret): the accounts of one seed for a few request shapes, each timed as the CPU time
// of the process, the median of several rounds. It prints figures only and
// asserts nothing: compare a change's figures with those of the commit before it, run alternately.
//   node --import tsx bench/walletAccounts.ts [--rounds 9]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { deriveAccounts, type AccountParameters } from '../src/activities/handlers/wallets/walletAccounts.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { generateMnemonic, mnemonicToSeed } from '../src/keys/mnemonic.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '9' } } });
const ROUNDS = Number(args.rounds);

const ethereum = (i: number): AccountParameters => ({ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: `m/44'/60'/0'/0/${i}`, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' });
const solana = (i: number): AccountParameters => ({ curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: `m/44'/501'/${i}'/0'`, addressFormat: 'ADDRESS_FORMAT_SOLANA' });
const times = (n: number, account: (i: number) => AccountParameters) => Array.from({ length: n }, (_, i) => account(i));

const SHAPES: Array<[string, AccountParameters[]]> = [
  ['1 Ethereum + 1 Solana', [ethereum(0), solana(0)]],
  ['100 Ethereum (m/44\'/60\'/0\'/0/i)', times(100, ethereum)],
  ["100 Solana (m/44'/501'/i'/0')", times(100, solana)],
];

const seed = mnemonicToSeed(generateMnemonic(12));
const kek = deploymentSecretKek(randomBytes(32));
const ORGANIZATION = '00000000-0000-4000-8000-000000000000';
const cpuMs = async (run: () => Promise<unknown>) => {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

for (const [label, accounts] of SHAPES) {
  await deriveAccounts(kek, ORGANIZATION, seed, accounts);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await cpuMs(() => deriveAccounts(kek, ORGANIZATION, seed, accounts)));
  rounds.sort((a, b) => a - b);
  console.log(`${label}: ${rounds[Math.floor(ROUNDS / 2)]!.toFixed(1)} ms CPU (median of ${ROUNDS}; best ${rounds[0]!.toFixed(1)})`);
}
seed.fill(0);
