// The readable summaries' shape, types only and importing nothing, so the console (bundled for the
// browser) reads the same declaration as the engine that makes them (summary.ts) and the lines both
// show (summaryLines.ts).

export interface SummaryArgument {
  readonly name: string;
  /** The value in text: integers in decimal (token amounts in base units), addresses lowercase. */
  readonly value: string;
}

export interface EthereumSummary {
  readonly kind: 'ethereum_transaction';
  readonly chain: { readonly id: number; readonly name: string };
  readonly from?: string;
  /** Absent for a contract creation. */
  readonly to?: { readonly address: string; readonly label?: string };
  readonly function?: { readonly name: string; readonly signature: string; readonly arguments: readonly SummaryArgument[] };
  /** The native value: in the chain's unit (decimal text) and in wei. */
  readonly value: { readonly amount: string; readonly unit: string; readonly wei: string };
  readonly text: string;
  /** Set when lists or the text were cut to keep the summary within MAX_SUMMARY_BYTES (bounded.ts). */
  readonly truncated?: true;
}

export interface SolanaSummary {
  readonly kind: 'solana_transaction';
  readonly instructions: readonly {
    readonly program: string;
    readonly label?: string;
    readonly name?: string;
    readonly arguments?: readonly SummaryArgument[];
  }[];
  readonly transfers: readonly { readonly from?: string; readonly to?: string; readonly sol: string; readonly lamports: string }[];
  readonly splTransfers: readonly { readonly from?: string; readonly to?: string; readonly amount: string; readonly tokenMint?: string }[];
  readonly text: string;
  readonly truncated?: true;
}

export interface TypedDataSummary {
  readonly kind: 'eip712';
  readonly primaryType: string;
  readonly domain: {
    readonly name?: string;
    readonly version?: string;
    readonly chain?: { readonly id: number | string; readonly name?: string };
    readonly verifyingContract?: string;
    readonly label?: string;
  };
  readonly message: readonly SummaryArgument[];
  readonly text: string;
  readonly truncated?: true;
}

/** What a person reads of a transaction or typed data: one of the summaries above, by its `kind`. */
export type ReadableSummary = EthereumSummary | SolanaSummary | TypedDataSummary;
