// The delete_smart_contract_interface activity (ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE):
// removes one stored ABI or IDL of the organization. The activities that created and deleted it
// remain, so the history stays auditable.
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { take } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';

const parameters = z.strictObject({
  smartContractInterfaceId: z
    .uuid({ message: 'must be a smart contract interface id (a UUID)' })
    .describe("Identifier of the interface to remove, as create_smart_contract_interface returned it; another organization's is a 404"),
});

const resultSchema = z.strictObject({ smartContractInterfaceId: z.uuid().describe('Identifier of the removed interface') });

export const deleteSmartContractInterface: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_smart_contract_interface',
  activityType: 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE',
  resource: 'SMART_CONTRACT_INTERFACE',
  action: 'DELETE',
  reasons: ['SMART_CONTRACT_INTERFACE_NOT_FOUND'],
  summary: "Removes a stored interface (`{smartContractInterfaceId}`); another organization's is a 404",
  description: "Removes a stored interface of the organization; another organization's is a 404. The activities that created and deleted it remain.",
  intentKey: 'deleteSmartContractInterfaceIntent',
  resultKey: 'deleteSmartContractInterfaceResult',
  parameters,
  resultSchema,
  example: { smartContractInterfaceId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90' },

  async execute(context, intent) {
    const { organizationId } = context;
    const id = intent.smartContractInterfaceId;
    return {
      result: { smartContractInterfaceId: id },
      effects: [
        // Another organization's interface is not found: whether it exists is not told.
        take('smartContractInterface', [organizationId, id], () => notFound('SMART_CONTRACT_INTERFACE_NOT_FOUND', `no smart contract interface ${id} in organization ${organizationId}`)),
      ],
    };
  },
};
