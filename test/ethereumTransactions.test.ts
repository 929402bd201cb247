// Ethereum transactions for sign_transaction (src/chains/ethereum/transaction.ts), pure: each type viem
// serializes (legacy with EIP-155, EIP-2930, EIP-1559, EIP-7702), sent with or without 0x as
// @turnkey/viem and @turnkey/ethers send it, is signed into the exact transaction viem's own local
// account signs, from which viem recovers the signer; its fields are decoded for the policies; what
// is not an unsigned transaction of those types is refused naming parameters.unsignedTransaction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as Rlp from 'ox/Rlp';
import { parseTransaction, recoverTransactionAddress, serializeTransaction, toHex, type TransactionSerializable } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MAX_TRANSACTION_BYTES, parseEthereumTransaction, signEthereumTransaction } from '../src/chains/ethereum/transaction.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { ParameterRejected } from '../src/keys/parameterRejected.ts';

const seed = mnemonicToSeed('test test test test test test test test test test test junk');
const key = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/0");
const account = privateKeyToAccount(toHex(key.privateKey));
const delegate = privateKeyToAccount(toHex(deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/1").privateKey));
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const CONTRACT = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B';
const DATA = '0xa9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000de0b6b3a7640000';

const rejected = (pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ParameterRejected, String(error));
  assert.equal(error.field, 'parameters.unsignedTransaction');
  assert.match(error.description, pattern);
  return true;
};

async function transactions(): Promise<Record<string, TransactionSerializable>> {
  return {
    legacy: { type: 'legacy', chainId: 1, nonce: 7, gasPrice: 20_000_000_000n, gas: 21_000n, to: TO, value: 10n ** 18n },
    eip2930: {
      type: 'eip2930',
      chainId: 137,
      nonce: 0,
      gasPrice: 30_000_000_000n,
      gas: 60_000n,
      to: CONTRACT,
      data: DATA,
      accessList: [{ address: CONTRACT, storageKeys: [`0x${'00'.repeat(31)}01`] }],
    },
    eip1559: { type: 'eip1559', chainId: 8453, nonce: 42, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gas: 90_000n, to: CONTRACT, value: 0n, data: DATA },
    eip7702: {
      type: 'eip7702',
      chainId: 1,
      nonce: 3,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      gas: 100_000n,
      to: account.address,
      authorizationList: [await delegate.signAuthorization({ contractAddress: CONTRACT, chainId: 1, nonce: 9 })],
    },
  };
}

test('each type is signed into the very transaction viem signs, and viem recovers the signer (with or without 0x)', async () => {
  for (const [type, transaction] of Object.entries(await transactions())) {
    const unsigned = serializeTransaction(transaction);
    for (const sent of [unsigned.slice(2), unsigned, unsigned.toUpperCase().replace('0X', '0x')]) {
      const { signedTransaction, transaction: decoded } = signEthereumTransaction(sent, key.privateKey);
      assert.match(signedTransaction, /^[0-9a-f]+$/, `${type}: hex without 0x`);
      assert.equal(`0x${signedTransaction}`, await account.signTransaction(transaction), type);
      assert.equal(await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as never }), account.address, type);
      assert.equal(decoded.type, type);
    }
  }
});

test('the decoded fields are what viem serialized: type, chain, nonce, to, value, data, gas and fees, access list, authorizations', async () => {
  const all = await transactions();
  const legacy = parseEthereumTransaction(serializeTransaction(all.legacy!)).transaction;
  assert.deepEqual(legacy, {
    type: 'legacy', chainId: 1, nonce: 7n, to: TO.toLowerCase(), value: 10n ** 18n, data: '0x', gas: 21_000n, gasPrice: 20_000_000_000n, accessList: [],
  });
  const eip2930 = parseEthereumTransaction(serializeTransaction(all.eip2930!)).transaction;
  assert.equal(eip2930.chainId, 137);
  assert.equal(eip2930.data, DATA);
  assert.equal(eip2930.gasPrice, 30_000_000_000n);
  assert.deepEqual(eip2930.accessList, [{ address: CONTRACT.toLowerCase(), storageKeys: [`0x${'00'.repeat(31)}01`] }]);
  const eip1559 = parseEthereumTransaction(serializeTransaction(all.eip1559!)).transaction;
  assert.deepEqual(
    { chainId: eip1559.chainId, nonce: eip1559.nonce, to: eip1559.to, value: eip1559.value, gas: eip1559.gas, maxFeePerGas: eip1559.maxFeePerGas, maxPriorityFeePerGas: eip1559.maxPriorityFeePerGas, gasPrice: eip1559.gasPrice },
    { chainId: 8453, nonce: 42n, to: CONTRACT.toLowerCase(), value: 0n, gas: 90_000n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasPrice: undefined },
  );
  const eip7702 = parseEthereumTransaction(serializeTransaction(all.eip7702!)).transaction;
  assert.deepEqual(eip7702.authorizationList, [{ address: CONTRACT.toLowerCase(), chainId: 1, nonce: 9n }]);
  assert.equal(eip7702.to, account.address.toLowerCase());
  // A contract creation has no recipient.
  const creation = parseEthereumTransaction(serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 0, gas: 1_000_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, data: '0x6080' })).transaction;
  assert.equal(creation.to, undefined);
  assert.equal(parseTransaction(`0x${signEthereumTransaction(serializeTransaction(all.eip1559!), key.privateKey).signedTransaction}`).to, CONTRACT.toLowerCase());
});

test('what is not an unsigned transaction of a supported type is refused naming parameters.unsignedTransaction', async () => {
  const all = await transactions();
  assert.throws(() => parseEthereumTransaction(42), rejected(/must be the serialized transaction in hexadecimal/));
  assert.throws(() => parseEthereumTransaction('0x02zz'), rejected(/even number of hexadecimal digits/));
  assert.throws(() => parseEthereumTransaction('0x'), rejected(/even number of hexadecimal digits/));
  assert.throws(() => parseEthereumTransaction(`02${'00'.repeat(MAX_TRANSACTION_BYTES)}`), rejected(/longer than 131072 bytes/));
  assert.throws(() => parseEthereumTransaction('0x03c0'), rejected(/type byte 0x03; supported are legacy/));
  assert.throws(() => parseEthereumTransaction('76c0'), rejected(/type byte 0x76/));
  assert.throws(() => parseEthereumTransaction('0x02c0'), rejected(/is not a valid transaction of type eip1559/));
  assert.throws(() => parseEthereumTransaction('0xc1'), rejected(/is not a valid transaction of type legacy/));
  for (const signed of [await account.signTransaction(all.eip1559!), await account.signTransaction(all.legacy!)]) {
    assert.throws(() => parseEthereumTransaction(signed), rejected(/is already signed/));
  }
  const { chainId: _, ...noChain } = all.legacy as { chainId: number };
  assert.throws(() => parseEthereumTransaction(serializeTransaction({ ...noChain, type: 'legacy' } as TransactionSerializable)), rejected(/without an EIP-155 chain id/));
  // A nonce written with a leading zero byte decodes to the same number but is not the bytes a client signs.
  const fields = Rlp.toHex(serializeTransaction(all.legacy!)) as `0x${string}`[];
  const padded = Rlp.fromHex(['0x0007', ...fields.slice(1)]);
  assert.throws(() => parseEthereumTransaction(padded), rejected(/is not in the canonical legacy encoding/));
  assert.throws(() => parseEthereumTransaction(`${serializeTransaction(all.eip1559!)}00`), rejected(/is not in the canonical eip1559 encoding/));
});
