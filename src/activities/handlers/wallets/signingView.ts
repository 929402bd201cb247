// What policies and approvers read of a signing activity (its handler's `view`: lifecycle/view.ts):
// the key it signs with (`wallet` and `wallet_account`, or `private_key`: keyBindings.ts), and what it signs decoded
// with the organization's smart contract interfaces for the contracts it names: an Ethereum
// transaction (`eth.tx`), a Solana one (`solana.tx`), EIP-712 typed data (`eth.eip_712`), each with
// a summary in words. What does not decode is left out, so a condition reading it fails closed.
import type { ParsedEthereumTransaction } from '../../../chains/ethereum/transaction.ts';
import type { ParsedSolanaTransaction } from '../../../chains/solana/transaction.ts';
import type { PolicyStruct } from '../../../policy/index.ts';
import {
  ethereumTransactionView,
  interfaceIndex,
  solanaTransactionView,
  summarizeEthereumTransaction,
  summarizeSolanaTransaction,
  summarizeTypedData,
  typedDataView,
} from '../../../readable/index.ts';
import { findInterfacesFor } from '../../../store/smartContractInterfaces.ts';
import type { ActivityView, PrepareContext } from '../../handler.ts';
import { signerBindings } from './keyBindings.ts';
import type { SignerKey } from './signingAccount.ts';

/** A transaction sign_transaction signs, as its chain's parser read it (the parse intake made: no second one). */
export type ParsedTransaction =
  | ({ type: 'TRANSACTION_TYPE_ETHEREUM' } & ParsedEthereumTransaction)
  | ({ type: 'TRANSACTION_TYPE_SOLANA' } & ParsedSolanaTransaction);

/**
 * The view of a transaction sign_transaction signs. The key's read and the interfaces' read are made
 * together: neither waits for the other.
 */
export async function transactionView(context: PrepareContext, parsed: ParsedTransaction, signer: SignerKey): Promise<ActivityView> {
  if (parsed.type === 'TRANSACTION_TYPE_ETHEREUM') {
    const { transaction } = parsed;
    const [{ bindings: key, from }, stored] = await Promise.all([
      signerBindings(context, signer),
      findInterfacesFor(context.db, context.organizationId, { ethereum: transaction.to === undefined ? [] : [transaction.to], solana: [] }),
    ]);
    const view = ethereumTransactionView(transaction, interfaceIndex(stored), from);
    return { signing: { ...key, eth: { tx: view.tx } }, summary: summarizeEthereumTransaction(view) };
  }
  const { message } = parsed;
  const programs = message.instructions.map((instruction) => instruction.programId).filter((id): id is string => id !== undefined);
  const [{ bindings: key }, stored] = await Promise.all([signerBindings(context, signer), findInterfacesFor(context.db, context.organizationId, { ethereum: [], solana: programs })]);
  const view = solanaTransactionView(message, interfaceIndex(stored));
  return { signing: { ...key, solana: { tx: view.tx } }, summary: summarizeSolanaTransaction(view) };
}

/**
 * The view of payloads signed by sign_raw_payload(s): EIP-712 typed data as `eth.eip_712`, its
 * verifying contract's interface label in the summary; any other encoding binds the key only. A
 * condition reads one typed data: payloads that are not all the same bind none (a condition reading
 * `eth.eip_712` then fails closed, rather than allowing the others for what the first says).
 */
export async function payloadView(context: PrepareContext, payloads: readonly string[], encoding: string, signer: SignerKey): Promise<ActivityView> {
  const { bindings: key } = await signerBindings(context, signer);
  const first = payloads[0];
  if (encoding !== 'PAYLOAD_ENCODING_EIP712' || first === undefined || payloads.some((payload) => payload !== first)) return { signing: key };
  let parsed: unknown;
  try {
    parsed = JSON.parse(first);
  } catch {
    return { signing: key };
  }
  const decoded = typedDataView(parsed);
  if (!decoded.ok) return { signing: key };
  const contract = decoded.value.domain.verifying_contract;
  const stored = typeof contract === 'string' ? await findInterfacesFor(context.db, context.organizationId, { ethereum: [contract], solana: [] }) : [];
  const label = typeof contract === 'string' ? interfaceIndex(stored).ethereum.get(contract.toLowerCase())?.label : undefined;
  return { signing: { ...key, eth: { eip_712: decoded.value.eip712 as PolicyStruct } }, summary: summarizeTypedData(decoded.value, label) };
}
