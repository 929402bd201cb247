// The request bodies the tests submit: an activity's envelope as a client builds it, and the
// smart contract interface activity many tests use as "some activity" to decide.

/** An activity's body: its type, the time now, the organization and the parameters. */
export const envelope = <T extends string, P extends object>(type: T, organizationId: string, parameters: P) => ({
  type,
  timestampMs: String(Date.now()),
  organizationId,
  parameters,
});

/** An ERC-20 transfer function: a small valid Ethereum ABI. */
export const TRANSFER_ABI =
  '[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"name":"","type":"bool"}],"stateMutability":"nonpayable"}]';

/** create_smart_contract_interface of TRANSFER_ABI under `label`. */
export const interfaceBody = (organizationId: string, label: string) =>
  envelope('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId, {
    smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    smartContractInterface: TRANSFER_ABI,
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const,
    label,
  });
