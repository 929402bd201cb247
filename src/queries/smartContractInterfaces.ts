// get_smart_contract_interface and list_smart_contract_interfaces: stored ABIs and IDLs of the
// organization, as submitted; the list in pages (queries/pagination.ts).
import { z } from 'zod';
import { SMART_CONTRACT_INTERFACE_TYPES } from '../activities/handlers/contracts/createSmartContractInterface.ts';
import { notFound } from '../errors.ts';
import {
  findSmartContractInterfaceFor,
  listSmartContractInterfacesFor,
  type SmartContractInterfaceRecord,
} from '../store/smartContractInterfaces.ts';
import { pageRequest, pageRows, paginationOptions, type PaginationOptions } from './pagination.ts';
import { granted, type QueryHandler } from './query.ts';

function render(record: SmartContractInterfaceRecord) {
  return {
    organizationId: record.organizationId,
    smartContractInterfaceId: record.id,
    smartContractAddress: record.smartContractAddress,
    smartContractInterface: record.smartContractInterface,
    type: record.type,
    label: record.label,
    notes: record.notes,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');

const interfaceSchema = z
  .strictObject({
    organizationId: z.uuid().describe('The organization the interface belongs to'),
    smartContractInterfaceId: z.uuid().describe('Identifier of the interface'),
    smartContractAddress: z.string().describe('Contract address or program ID that the interface belongs to'),
    smartContractInterface: z.string().describe('The ABI or IDL as a JSON string, exactly as submitted'),
    type: z.enum(SMART_CONTRACT_INTERFACE_TYPES).describe('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA'),
    label: z.string().describe('Human-readable name of the interface'),
    notes: z.string().describe('Notes on the interface ("" when none were given)'),
    createdAt: z.iso.datetime().describe('Creation time (RFC 3339)'),
    updatedAt: z.iso.datetime().describe('Time of the last update (RFC 3339)'),
  })
  .meta({ id: 'SmartContractInterface', description: 'A stored ABI or IDL' });

export const getSmartContractInterface: QueryHandler = {
  path: 'get_smart_contract_interface',
  description: 'One stored ABI or IDL of the organization, as submitted.',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', smartContractInterfaceId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90' },
  request: z.strictObject({
    organizationId,
    smartContractInterfaceId: z
      .uuid({ message: 'must be a smart contract interface id (a UUID)' })
      .describe("The interface to read, as create_smart_contract_interface returned it; another organization's is a 404"),
  }),
  answer: z.strictObject({ smartContractInterface: interfaceSchema }),
  async run(context, query: { organizationId: string; smartContractInterfaceId: string }) {
    const { record } = granted(
      context,
      await findSmartContractInterfaceFor(context.db, context.principal.credential, query.organizationId, query.smartContractInterfaceId),
    );
    if (!record) throw notFound('SMART_CONTRACT_INTERFACE_NOT_FOUND', `no smart contract interface ${query.smartContractInterfaceId} in organization ${query.organizationId}`);
    return { smartContractInterface: render(record) };
  },
};

export const listSmartContractInterfaces: QueryHandler = {
  path: 'list_smart_contract_interfaces',
  description: "The organization's stored ABIs and IDLs, newest first, in pages (cursors are interface ids).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', paginationOptions: { limit: '10' } },
  request: z.strictObject({ organizationId, paginationOptions: paginationOptions('a smart contract interface') }),
  answer: z.strictObject({ smartContractInterfaces: z.array(interfaceSchema).describe("The organization's interfaces, newest first: one page") }),
  async run(context, query: { organizationId: string; paginationOptions?: PaginationOptions }) {
    const { page } = granted(
      context,
      await listSmartContractInterfacesFor(context.db, context.principal.credential, query.organizationId, pageRequest(query.paginationOptions)),
    );
    return { smartContractInterfaces: pageRows(page!, query.paginationOptions).map(render) };
  },
};
