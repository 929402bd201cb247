// Account keys from a wallet's seed, by path: CURVE_SECP256K1 by BIP-32 (@scure/bip32), CURVE_ED25519
// by SLIP-0010, which defines only hardened steps for ed25519 (a step without ' or h is refused,
// naming the path). The path is parsed here, with bounds, so both curves read it the same way.
import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { ParameterRejected } from './parameterRejected.ts';

/** The curves a wallet account is derived on. CURVE_P256 exists on the wire but has no account derivation here. */
export const DERIVATION_CURVES = ['CURVE_SECP256K1', 'CURVE_ED25519'] as const;
export type DerivationCurve = (typeof DERIVATION_CURVES)[number];

/** Steps below the seed: BIP-44 uses 5, SLIP-0010 paths of the ecosystem at most 6. */
export const MAX_PATH_DEPTH = 10;
/** Ten steps of ten digits and a mark each, with their slashes, fit in this. */
export const MAX_PATH_CHARACTERS = 128;

export interface PathStep {
  /** 0 ≤ index < 2^31. */
  index: number;
  hardened: boolean;
}

const STEP = /^(0|[1-9][0-9]{0,9})(['h]?)$/;

/** `m/44'/60'/0'/0/0` (a hardened step marked by ' or h) as its steps; a ParameterRejected naming `field` otherwise. */
export function parseDerivationPath(path: unknown, field = 'path'): PathStep[] {
  if (typeof path !== 'string') throw new ParameterRejected(field, 'must be a string such as m/44\'/60\'/0\'/0/0');
  if (path.length > MAX_PATH_CHARACTERS) throw new ParameterRejected(field, `is longer than ${MAX_PATH_CHARACTERS} characters`);
  const [root, ...rest] = path.split('/');
  if (root !== 'm') throw new ParameterRejected(field, `must start with m/, as in m/44'/60'/0'/0/0; got ${JSON.stringify(path)}`);
  if (rest.length > MAX_PATH_DEPTH) {
    throw new ParameterRejected(field, `${JSON.stringify(path)} has ${rest.length} steps; at most ${MAX_PATH_DEPTH} are allowed`);
  }
  return rest.map((step, position) => {
    const match = STEP.exec(step);
    if (!match) {
      throw new ParameterRejected(
        field,
        `step ${position + 1} of ${JSON.stringify(path)} is ${JSON.stringify(step)}; each step is a number, followed by ' or h when hardened`,
      );
    }
    const index = Number(match[1]);
    if (index >= HARDENED_OFFSET) {
      throw new ParameterRejected(field, `step ${position + 1} of ${JSON.stringify(path)} is ${index}; an index is below 2^31 (2147483648), marked ' to harden it`);
    }
    return { index, hardened: match[2] !== '' };
  });
}

export interface AccountKey {
  curve: DerivationCurve;
  /** 32 bytes. The caller zeroes it when done (`privateKey.fill(0)`). */
  privateKey: Uint8Array;
  /** secp256k1: the compressed SEC1 point (33 bytes); ed25519: the 32-byte key. */
  publicKey: Uint8Array;
}

/** How the request names the account's fields, for the refusals (e.g. `parameters.accounts[0].path`). */
export interface AccountFields {
  path: string;
  curve: string;
}

/** The account key at `path` below `seed` (16 to 64 bytes; BIP-39 seeds are 64). */
export function deriveAccountKey(curve: unknown, seed: Uint8Array, path: string, fields: AccountFields = { path: 'path', curve: 'curve' }): AccountKey {
  const deriver = accountKeyDeriver(seed);
  try {
    return deriver.derive(curve, path, fields);
  } finally {
    deriver.wipe();
  }
}

/** Derives several accounts of one seed; `wipe` zeroes every key it kept. */
export interface AccountKeyDeriver {
  /** As deriveAccountKey: the account key at `path`, a ParameterRejected naming `fields` when it cannot be. */
  derive(curve: unknown, path: string, fields?: AccountFields): AccountKey;
  wipe(): void;
}

/**
 * The accounts of one seed, each parent key derived once: accounts below one parent (m/44'/60'/0'/0/i)
 * cost one step each rather than the whole path. The parents' keys are kept until `wipe`.
 */
export function accountKeyDeriver(seed: Uint8Array): AccountKeyDeriver {
  if (seed.length < 16 || seed.length > 64) throw new RangeError('a seed has 16 to 64 bytes');
  const secp256k1Nodes = new Map<string, HDKey>();
  const ed25519Nodes = new Map<string, Uint8Array>();
  return {
    derive(curve, path, fields = { path: 'path', curve: 'curve' }) {
      const steps = parseDerivationPath(path, fields.path);
      if (curve === 'CURVE_SECP256K1') return secp256k1Key(seed, steps, secp256k1Nodes);
      if (curve === 'CURVE_ED25519') {
        const soft = steps.findIndex((step) => !step.hardened);
        if (soft >= 0) {
          throw new ParameterRejected(
            fields.path,
            `step ${soft + 1} of ${JSON.stringify(path)} is not hardened; CURVE_ED25519 keys are derived by SLIP-0010, which has hardened steps only (mark each with ')`,
          );
        }
        return ed25519Key(seed, steps, ed25519Nodes);
      }
      throw new ParameterRejected(fields.curve, `must be one of ${DERIVATION_CURVES.join(', ')}; got ${JSON.stringify(curve)}`);
    },
    wipe() {
      for (const node of secp256k1Nodes.values()) node.wipePrivateData();
      for (const node of ed25519Nodes.values()) node.fill(0);
      secp256k1Nodes.clear();
      ed25519Nodes.clear();
    },
  };
}

/** The key of the steps' prefixes, written one way whatever marked a hardened step (' or h). */
const prefixOf = (steps: readonly PathStep[], length: number) =>
  steps
    .slice(0, length)
    .map((step) => `${step.index}${step.hardened ? "'" : ''}`)
    .join('/');

/** The node at `steps`: from the longest prefix kept in `nodes`, each node on the way kept there. */
function nodeAt<Node>(steps: readonly PathStep[], nodes: Map<string, Node>, root: () => Node, child: (parent: Node, step: PathStep) => Node): Node {
  let depth = steps.length;
  while (depth > 0 && !nodes.has(prefixOf(steps, depth))) depth--;
  let node = nodes.get(prefixOf(steps, depth));
  if (node === undefined) {
    node = root();
    nodes.set('', node);
  }
  for (; depth < steps.length; depth++) {
    node = child(node, steps[depth]!);
    nodes.set(prefixOf(steps, depth + 1), node);
  }
  return node;
}

function secp256k1Key(seed: Uint8Array, steps: readonly PathStep[], nodes: Map<string, HDKey>): AccountKey {
  const key = nodeAt(
    steps,
    nodes,
    () => HDKey.fromMasterSeed(seed),
    (parent, step) => parent.deriveChild(step.hardened ? step.index + HARDENED_OFFSET : step.index),
  );
  return { curve: 'CURVE_SECP256K1', privateKey: Uint8Array.from(key.privateKey!), publicKey: Uint8Array.from(key.publicKey!) };
}

/**
 * SLIP-0010 for ed25519: I = HMAC-SHA512("ed25519 seed", seed), then per hardened step
 * I = HMAC-SHA512(chain code, 0x00 ‖ key ‖ ser32(index + 2^31)); the key is I's left half, the
 * chain code its right half. No curve arithmetic: @noble/curves makes the public key.
 */
function ed25519Key(seed: Uint8Array, steps: readonly PathStep[], nodes: Map<string, Uint8Array>): AccountKey {
  const node = nodeAt(
    steps,
    nodes,
    () => hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed),
    (parent, step) => {
      const data = new Uint8Array(37);
      data.set(parent.subarray(0, 32), 1);
      new DataView(data.buffer).setUint32(33, step.index + HARDENED_OFFSET);
      const child = hmac(sha512, parent.subarray(32), data);
      data.fill(0);
      return child;
    },
  );
  const privateKey = node.slice(0, 32);
  return { curve: 'CURVE_ED25519', privateKey, publicKey: ed25519.getPublicKey(privateKey) };
}
