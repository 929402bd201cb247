// Ethereum transactions for sign_transaction (TRANSACTION_TYPE_ETHEREUM), pure: the unsigned
// transaction as the ecosystem sends it (hex, with or without 0x: @turnkey/viem strips it,
// @turnkey/ethers keeps it) of type legacy (with an EIP-155 chain id), EIP-2930 (0x01), EIP-1559
// (0x02) or EIP-7702 (0x04), decoded and re-encoded by ox; its signing hash signed with a secp256k1
// key; the signed transaction answered in hex without 0x (@turnkey/viem prefixes 0x to it). The
// decoded fields are exposed for the policies.
import * as Address from 'ox/Address';
import * as TxEnvelopeEip1559 from 'ox/TxEnvelopeEip1559';
import * as TxEnvelopeEip2930 from 'ox/TxEnvelopeEip2930';
import * as TxEnvelopeEip7702 from 'ox/TxEnvelopeEip7702';
import * as TxEnvelopeLegacy from 'ox/TxEnvelopeLegacy';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ParameterRejected } from '../../keys/parameterRejected.ts';

/** Geth's transaction pool takes transactions of at most 128 KiB; a bigger one could not be sent. */
export const MAX_TRANSACTION_BYTES = 131_072;

const FIELD = 'parameters.unsignedTransaction';

export type EthereumTransactionType = 'legacy' | 'eip2930' | 'eip1559' | 'eip7702';

export interface EthereumAuthorization {
  /** The delegate's address, lowercase. */
  address: string;
  /** 0 is valid on every chain. */
  chainId: number;
  nonce: bigint;
}

/** A transaction's fields as a policy reads them: addresses lowercase, amounts as bigint, data as 0x hex. */
export interface EthereumTransaction {
  type: EthereumTransactionType;
  chainId: number;
  nonce: bigint;
  /** Lowercase 0x address; undefined for a contract creation. */
  to: string | undefined;
  value: bigint;
  /** 0x-prefixed call data, `0x` when empty. */
  data: string;
  /** The gas limit. */
  gas: bigint;
  /** legacy and EIP-2930. */
  gasPrice?: bigint;
  /** EIP-1559 and EIP-7702. */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList: { address: string; storageKeys: string[] }[];
  /** EIP-7702 only: the delegations it carries (each signed by its own authority). */
  authorizationList?: EthereumAuthorization[];
}

type Envelope =
  | TxEnvelopeLegacy.TxEnvelopeLegacy
  | TxEnvelopeEip2930.TxEnvelopeEip2930
  | TxEnvelopeEip1559.TxEnvelopeEip1559
  | TxEnvelopeEip7702.TxEnvelopeEip7702;

export interface ParsedEthereumTransaction {
  transaction: EthereumTransaction;
  /** ox's envelope, what signEthereumTransaction signs and serializes. */
  envelope: Envelope;
}

const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})+)$/;
const TYPES: Record<number, EthereumTransactionType> = { 0x01: 'eip2930', 0x02: 'eip1559', 0x04: 'eip7702' };

/** The unsigned transaction decoded; a ParameterRejected naming parameters.unsignedTransaction when it is not one. */
export function parseEthereumTransaction(unsignedTransaction: unknown): ParsedEthereumTransaction {
  if (typeof unsignedTransaction !== 'string') throw new ParameterRejected(FIELD, 'must be the serialized transaction in hexadecimal');
  if ((unsignedTransaction.startsWith('0x') ? unsignedTransaction.length - 2 : unsignedTransaction.length) > MAX_TRANSACTION_BYTES * 2) {
    throw new ParameterRejected(FIELD, `is longer than ${MAX_TRANSACTION_BYTES} bytes, the most a node accepts`);
  }
  const match = HEX.exec(unsignedTransaction);
  if (!match) throw new ParameterRejected(FIELD, 'must be the serialized transaction as an even number of hexadecimal digits, 0x optional');
  const hex = `0x${match[1]!.toLowerCase()}` as const;
  const first = Number.parseInt(hex.slice(2, 4), 16);
  const type: EthereumTransactionType | undefined = first >= 0xc0 ? 'legacy' : TYPES[first];
  if (!type) {
    throw new ParameterRejected(
      FIELD,
      `starts with type byte 0x${hex.slice(2, 4)}; supported are legacy (an RLP list), 0x01 (EIP-2930), 0x02 (EIP-1559) and 0x04 (EIP-7702)`,
    );
  }
  let envelope: Envelope;
  try {
    envelope = deserialize(type, hex);
  } catch (error) {
    throw new ParameterRejected(FIELD, `is not a valid transaction of type ${type}: ${shortMessage(error)}`);
  }
  if (envelope.r !== undefined || envelope.s !== undefined || envelope.yParity !== undefined) {
    throw new ParameterRejected(FIELD, 'is already signed; send the transaction without its signature');
  }
  if (type === 'legacy' && !((envelope.chainId ?? 0) > 0)) {
    throw new ParameterRejected(FIELD, 'is a legacy transaction without an EIP-155 chain id, whose signature is valid on every chain; set its chainId');
  }
  // ox's deserialization is lenient about some encodings (a leading zero, an empty field): what is signed
  // must be exactly what the client sent, so the transaction must re-encode to the same bytes.
  if (serialize(envelope) !== hex) {
    throw new ParameterRejected(FIELD, `is not in the canonical ${type} encoding (a field has leading zeros, or bytes follow the transaction)`);
  }
  return { envelope, transaction: fields(type, envelope) };
}

export interface SignedEthereumTransaction {
  /** The signed transaction in hex, without 0x, as sign_transaction answers it. */
  signedTransaction: string;
  /** The decoded fields, for the policies and the audit (the signer is the caller's: it holds the key's address). */
  transaction: EthereumTransaction;
}

/** Signs the transaction's signing hash with a secp256k1 key (deterministic, low s). */
export function signEthereumTransaction(unsignedTransaction: unknown, privateKey: Uint8Array): SignedEthereumTransaction {
  return signParsedEthereumTransaction(parseEthereumTransaction(unsignedTransaction), privateKey);
}

/** signEthereumTransaction of a transaction parsed already (parseEthereumTransaction): a signature that costs no second parse. */
export function signParsedEthereumTransaction({ envelope, transaction }: ParsedEthereumTransaction, privateKey: Uint8Array): SignedEthereumTransaction {
  const digest = signPayload(envelope);
  const signature = secp256k1.sign(digest, privateKey, { lowS: true });
  const signed = serialize(envelope, { r: signature.r, s: signature.s, yParity: signature.recovery });
  // No public key made here: a second point multiplication would double a signature's cost.
  return { signedTransaction: signed.slice(2), transaction };
}

function deserialize(type: EthereumTransactionType, hex: `0x${string}`): Envelope {
  switch (type) {
    case 'legacy':
      return TxEnvelopeLegacy.deserialize(hex);
    case 'eip2930':
      return TxEnvelopeEip2930.deserialize(hex as TxEnvelopeEip2930.Serialized);
    case 'eip1559':
      return TxEnvelopeEip1559.deserialize(hex as TxEnvelopeEip1559.Serialized);
    case 'eip7702':
      return TxEnvelopeEip7702.deserialize(hex as TxEnvelopeEip7702.Serialized);
  }
}

type Signature = { r: bigint; s: bigint; yParity: number };

function serialize(envelope: Envelope, signature?: Signature): string {
  const options = signature ? { signature } : {};
  switch (envelope.type) {
    case 'legacy':
      return TxEnvelopeLegacy.serialize(envelope, options);
    case 'eip2930':
      return TxEnvelopeEip2930.serialize(envelope, options);
    case 'eip1559':
      return TxEnvelopeEip1559.serialize(envelope, options);
    case 'eip7702':
      return TxEnvelopeEip7702.serialize(envelope, options);
  }
}

function signPayload(envelope: Envelope): Uint8Array {
  const hash = (() => {
    switch (envelope.type) {
      case 'legacy':
        return TxEnvelopeLegacy.getSignPayload(envelope as TxEnvelopeLegacy.TxEnvelopeLegacy<false>);
      case 'eip2930':
        return TxEnvelopeEip2930.getSignPayload(envelope as TxEnvelopeEip2930.TxEnvelopeEip2930<false>);
      case 'eip1559':
        return TxEnvelopeEip1559.getSignPayload(envelope as TxEnvelopeEip1559.TxEnvelopeEip1559<false>);
      case 'eip7702':
        return TxEnvelopeEip7702.getSignPayload(envelope as TxEnvelopeEip7702.TxEnvelopeEip7702<false>);
    }
  })();
  return Buffer.from(hash.slice(2), 'hex');
}

function fields(type: EthereumTransactionType, envelope: Envelope): EthereumTransaction {
  const transaction: EthereumTransaction = {
    type,
    chainId: envelope.chainId ?? 0,
    nonce: envelope.nonce ?? 0n,
    to: envelope.to ? Address.from(envelope.to).toLowerCase() : undefined,
    value: envelope.value ?? 0n,
    data: envelope.data ?? envelope.input ?? '0x',
    gas: envelope.gas ?? 0n,
    accessList: 'accessList' in envelope && envelope.accessList
      ? envelope.accessList.map(({ address, storageKeys }) => ({ address: address.toLowerCase(), storageKeys: [...storageKeys] }))
      : [],
  };
  if ('gasPrice' in envelope && (type === 'legacy' || type === 'eip2930')) transaction.gasPrice = envelope.gasPrice ?? 0n;
  if (type === 'eip1559' || type === 'eip7702') {
    const fees = envelope as TxEnvelopeEip1559.TxEnvelopeEip1559;
    transaction.maxFeePerGas = fees.maxFeePerGas ?? 0n;
    transaction.maxPriorityFeePerGas = fees.maxPriorityFeePerGas ?? 0n;
  }
  if (type === 'eip7702') {
    transaction.authorizationList = (envelope as TxEnvelopeEip7702.TxEnvelopeEip7702).authorizationList.map(({ address, chainId, nonce }) => ({
      address: address.toLowerCase(),
      chainId,
      nonce,
    }));
  }
  return transaction;
}

function shortMessage(error: unknown): string {
  const value = error as { shortMessage?: string; message?: string };
  return String(value?.shortMessage ?? value?.message ?? error).split('\n')[0]!.slice(0, 200);
}
