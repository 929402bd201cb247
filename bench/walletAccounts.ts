// A micro-benchmark of a wallet's accounts derived from its seed (the CPU part of create_wallet and
// create_wallet_accounts, run on the event loop): the accounts of one seed for a few request shapes,
// each timed as the CPU time of the process, the median of several rounds. It prints figures only and
// asserts nothing: compare a change's figures with those of the commit before it, run alternately.
//   node --import tsx bench/walletAccounts.ts [--rounds 9]
import { parseArgs } from 'node:util';
import { deriveAccounts, type AccountParameters } from '../src/activities/handlers/wallets/walletAccounts.ts';
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
const cpuMs = (run: () => void) => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

for (const [label, accounts] of SHAPES) {
  deriveAccounts(seed, accounts);
  const rounds = Array.from({ length: ROUNDS }, () => cpuMs(() => deriveAccounts(seed, accounts))).sort((a, b) => a - b);
  console.log(`${label}: ${rounds[Math.floor(ROUNDS / 2)]!.toFixed(1)} ms CPU (median of ${ROUNDS}; best ${rounds[0]!.toFixed(1)})`);
}
seed.fill(0);
