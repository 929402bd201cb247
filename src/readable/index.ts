// Transactions as policies and people read them, pure: a parsed transaction (chains/) or EIP-712
// typed data decoded against the organization's stored interfaces (contracts/) into the values the
// signing keywords of the policy language are bound to (policy/), and a readable summary of them.
// Its own folder because it joins three pure folders that may not import one another.
export { ethereumTransactionView, type EthereumTransactionView } from './ethereum.ts';
export { EMPTY_INTERFACES, interfaceIndex, type InterfaceIndex, type StoredInterface } from './interfaces.ts';
export { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, solanaTransactionView, type SolanaTransactionView } from './solana.ts';
export {
  CHAINS,
  formatUnits,
  summarizeEthereumTransaction,
  summarizeSolanaTransaction,
  summarizeTypedData,
  type EthereumSummary,
  type ReadableSummary,
  type SolanaSummary,
  type TypedDataSummary,
} from './summary.ts';
export { typedDataView, type TypedDataView } from './typedData.ts';
export { boundedSummary, MAX_SUMMARY_BYTES } from './bounded.ts';
export { isReadableSummary, oneLine, summaryLines, type SummaryLine } from './summaryLines.ts';
