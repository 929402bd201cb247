// The form of an Ethereum address: 0x and 40 hexadecimal digits, in any case (the EIP-55 checksum,
// where there is one, is the contracts' rule: src/contracts/address.ts). Read by the contracts' rules
// and by policies (src/policy/ethereumAddress.ts).
export const ETHEREUM_ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
