// The organization's stored smart contract interfaces, indexed for decoding: Ethereum ABIs by the
// contract's address in lowercase (an address matches whatever its case), Solana IDLs by the program
// id exactly (base58, where case matters). Each interface's JSON is parsed once, here.

/** What decoding needs of a stored interface (the store's record has these fields and more). */
export interface StoredInterface {
  readonly smartContractAddress: string;
  /** The ABI or IDL as submitted, JSON text. */
  readonly smartContractInterface: string;
  /** SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA. */
  readonly type: string;
  readonly label: string;
}

export interface KnownEthereumContract {
  readonly abi: readonly unknown[];
  readonly label: string;
}

export interface KnownSolanaProgram {
  readonly idl: object;
  readonly label: string;
}

export interface InterfaceIndex {
  readonly ethereum: ReadonlyMap<string, KnownEthereumContract>;
  readonly solana: ReadonlyMap<string, KnownSolanaProgram>;
}

export const EMPTY_INTERFACES: InterfaceIndex = { ethereum: new Map(), solana: new Map() };

/** The interfaces by address; one whose JSON does not parse to an ABI array or an IDL object is left out (it decodes nothing). */
export function interfaceIndex(interfaces: readonly StoredInterface[]): InterfaceIndex {
  const ethereum = new Map<string, KnownEthereumContract>();
  const solana = new Map<string, KnownSolanaProgram>();
  for (const item of interfaces) {
    let definition: unknown;
    try {
      definition = JSON.parse(item.smartContractInterface);
    } catch {
      continue;
    }
    if (item.type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' && Array.isArray(definition)) {
      const address = item.smartContractAddress.toLowerCase();
      if (!ethereum.has(address)) ethereum.set(address, { abi: definition, label: item.label });
    } else if (item.type === 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' && typeof definition === 'object' && definition !== null && !Array.isArray(definition)) {
      if (!solana.has(item.smartContractAddress)) solana.set(item.smartContractAddress, { idl: definition, label: item.label });
    }
  }
  return { ethereum, solana };
}
