// get_smart_contract_interface and list_smart_contract_interfaces: stored ABIs and IDLs of the
// organization, as submitted.
import { z } from 'zod';
import { notFound } from '../errors.ts';
import type { Queryable } from '../store/db.ts';
import type { QueryHandler } from './query.ts';

interface InterfaceRow {
  id: string;
  organization_id: string;
  smart_contract_address: string;
  smart_contract_interface: string;
  type: string;
  label: string;
  notes: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, organization_id, smart_contract_address, smart_contract_interface, type, label, notes, created_at, updated_at';

function render(row: InterfaceRow) {
  return {
    organizationId: row.organization_id,
    smartContractInterfaceId: row.id,
    smartContractAddress: row.smart_contract_address,
    smartContractInterface: row.smart_contract_interface,
    type: row.type,
    label: row.label,
    notes: row.notes,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const organizationId = z.uuid({ message: 'must be the UUID of your organization' });

export const getSmartContractInterface: QueryHandler = {
  path: 'get_smart_contract_interface',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', smartContractInterfaceId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90' },
  request: z.strictObject({
    organizationId,
    smartContractInterfaceId: z.uuid({ message: 'must be a smart contract interface id (a UUID)' }),
  }),
  async run(db: Queryable, query: { organizationId: string; smartContractInterfaceId: string }) {
    const [row] = await db.query<InterfaceRow>(
      `SELECT ${COLUMNS} FROM smart_contract_interfaces WHERE organization_id = $1 AND id = $2`,
      [query.organizationId, query.smartContractInterfaceId],
    );
    if (!row) throw notFound(`no smart contract interface ${query.smartContractInterfaceId} in organization ${query.organizationId}`);
    return { smartContractInterface: render(row) };
  },
};

export const listSmartContractInterfaces: QueryHandler = {
  path: 'list_smart_contract_interfaces',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  async run(db: Queryable, query: { organizationId: string }) {
    const rows = await db.query<InterfaceRow>(
      `SELECT ${COLUMNS} FROM smart_contract_interfaces WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`,
      [query.organizationId],
    );
    return { smartContractInterfaces: rows.map(render) };
  },
};
