// BIP-39 mnemonics (English wordlist): generation from the CSPRNG, validation with a message that
// says what is wrong (the count, the position of an unknown word, the checksum) and never repeats
// a word, and the seed. The encoding and the PBKDF2 are @scure/bip39's.
import { entropyToMnemonic, mnemonicToEntropy } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { ParameterRejected } from './parameterRejected.ts';

/** The lengths BIP-39 defines: 128 to 256 bits of entropy, 32 bits apart. */
export const MNEMONIC_WORD_COUNTS = [12, 15, 18, 21, 24] as const;
export type MnemonicWordCount = (typeof MNEMONIC_WORD_COUNTS)[number];

/** The longest English mnemonic is 24 words of at most 8 letters; no input needs more characters than this. */
export const MAX_MNEMONIC_CHARACTERS = 1024;
/** A passphrase (BIP-39's "25th word") longer than this is refused. */
export const MAX_PASSPHRASE_CHARACTERS = 1024;

const WORDS: ReadonlySet<string> = new Set(wordlist);

/** A new mnemonic of `words` words: 11 bits a word, from `words * 32 / 3` bits of the CSPRNG. */
export function generateMnemonic(words: MnemonicWordCount = 12): string {
  if (!MNEMONIC_WORD_COUNTS.includes(words)) throw new RangeError(`a mnemonic has ${MNEMONIC_WORD_COUNTS.join(', ')} words`);
  const entropy = randomBytes((words * 32) / 3 / 8);
  try {
    return entropyToMnemonic(entropy, wordlist);
  } finally {
    entropy.fill(0);
  }
}

/**
 * The mnemonic in its canonical form (NFKD, words joined by one space), or a ParameterRejected
 * naming `field` that says what is wrong: the characters, the word count, which word (by position)
 * is not in the English wordlist, or the checksum. The words themselves never appear in it.
 */
export function parseMnemonic(text: unknown, field = 'parameters.mnemonic'): string {
  if (typeof text !== 'string') throw new ParameterRejected(field, 'must be a string of words');
  if (text.length > MAX_MNEMONIC_CHARACTERS) {
    throw new ParameterRejected(field, `is longer than ${MAX_MNEMONIC_CHARACTERS} characters; a mnemonic has at most 24 words`);
  }
  const words = text.normalize('NFKD').trim().split(/\s+/).filter((word) => word !== '');
  if (!(MNEMONIC_WORD_COUNTS as readonly number[]).includes(words.length)) {
    throw new ParameterRejected(field, `has ${words.length} words; a mnemonic has ${MNEMONIC_WORD_COUNTS.join(', ')} words`);
  }
  const unknown = words.findIndex((word) => !WORDS.has(word));
  if (unknown >= 0) {
    throw new ParameterRejected(field, `word ${unknown + 1} of ${words.length} is not in the BIP-39 English wordlist (words are lowercase)`);
  }
  const mnemonic = words.join(' ');
  try {
    mnemonicToEntropy(mnemonic, wordlist).fill(0);
  } catch {
    throw new ParameterRejected(field, 'fails its BIP-39 checksum: a word is wrong or the words are out of order');
  }
  return mnemonic;
}

/** The 64-byte BIP-39 seed of a mnemonic (checked first, see parseMnemonic) and an optional passphrase. */
export function mnemonicToSeed(mnemonic: string, passphrase = '', field = 'parameters.mnemonic'): Uint8Array {
  const canonical = parseMnemonic(mnemonic, field);
  if (typeof passphrase !== 'string' || passphrase.length > MAX_PASSPHRASE_CHARACTERS) {
    throw new ParameterRejected('parameters.passphrase', `must be a string of at most ${MAX_PASSPHRASE_CHARACTERS} characters`);
  }
  // BIP-39: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase, both NFKD. Node's own
  // PBKDF2 rather than a JavaScript one: the seed is made at every wallet creation and export.
  const password = Buffer.from(canonical.normalize('NFKD'), 'utf8');
  try {
    return pbkdf2Sync(password, Buffer.from(`mnemonic${passphrase.normalize('NFKD')}`, 'utf8'), 2048, 64, 'sha512');
  } finally {
    password.fill(0);
  }
}
