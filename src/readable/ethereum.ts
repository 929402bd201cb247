// An Ethereum transaction as a condition reads it (`eth.tx`), pure: the parsed transaction's fields
// under the ecosystem's names, and, when an ABI is stored for `to`, the call decoded against it
// (function_name, function_signature, contract_call_args). A field the transaction lacks is left out
// of the bound value, so that a condition reading it fails (and fails closed) rather than reading a
// made-up value: function_name with no ABI for `to` or with data the ABI does not decode,
// max_fee_per_gas on a legacy transaction, `to` on a contract creation.
import type { EthereumTransaction } from '../chains/ethereum/transaction.ts';
import { decodeEthereumCall, type EthereumCall } from '../contracts/decodeEthereumCall.ts';
import { normalizeInt, type PolicyStruct, type PolicyValue } from '../policy/index.ts';
import type { InterfaceIndex } from './interfaces.ts';
import { policyValue } from './values.ts';

/** `eth.tx.type`: the ecosystem's names of the transaction types. */
const TYPE_NAMES: Record<EthereumTransaction['type'], string> = { legacy: 'LEGACY', eip2930: 'TYPE_1', eip1559: 'TYPE_2', eip7702: 'TYPE_4' };

export interface EthereumTransactionView {
  /** What `eth.tx` is bound to. */
  readonly tx: PolicyStruct;
  /** The decoded call, when an ABI is stored for `to` and decodes the data. */
  readonly call?: EthereumCall;
  /** Why an ABI stored for `to` did not decode the data. */
  readonly callProblem?: string;
  /** The label of the interface stored for `to`. */
  readonly contractLabel?: string;
  readonly transaction: EthereumTransaction;
  readonly from?: string;
}

/** The view of `transaction` signed by `from` (its address; lowercase in the view), decoded against the organization's interfaces. */
export function ethereumTransactionView(transaction: EthereumTransaction, interfaces: InterfaceIndex, from?: string): EthereumTransactionView {
  const tx: Record<string, PolicyValue> = {
    chain_id: transaction.chainId,
    nonce: normalizeInt(transaction.nonce),
    value: normalizeInt(transaction.value),
    data: transaction.data.toLowerCase(),
    gas: normalizeInt(transaction.gas),
    type: TYPE_NAMES[transaction.type],
  };
  if (from !== undefined) tx.from = from.toLowerCase();
  if (transaction.to !== undefined) tx.to = transaction.to.toLowerCase();
  if (transaction.gasPrice !== undefined) tx.gas_price = normalizeInt(transaction.gasPrice);
  if (transaction.maxFeePerGas !== undefined) {
    tx.max_fee_per_gas = normalizeInt(transaction.maxFeePerGas);
    // The ecosystem's rule: an EIP-1559 transaction's gas_price reads its max_fee_per_gas.
    tx.gas_price = tx.max_fee_per_gas;
  }
  if (transaction.maxPriorityFeePerGas !== undefined) tx.max_priority_fee_per_gas = normalizeInt(transaction.maxPriorityFeePerGas);

  const contract = transaction.to === undefined ? undefined : interfaces.ethereum.get(transaction.to.toLowerCase());
  const view: { -readonly [K in keyof EthereumTransactionView]: EthereumTransactionView[K] } = { tx, transaction };
  if (from !== undefined) view.from = from.toLowerCase();
  if (contract) {
    view.contractLabel = contract.label;
    const decoded = decodeEthereumCall(contract.abi, transaction.data);
    if (decoded.ok) {
      view.call = decoded.value;
      tx.function_name = decoded.value.functionName;
      tx.function_signature = decoded.value.functionSignature;
      tx.contract_call_args = policyValue(decoded.value.args);
    } else {
      view.callProblem = decoded.problem;
    }
  }
  return view;
}
