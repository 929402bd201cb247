// Stored ABIs and IDLs (table smart_contract_interfaces), kept exactly as submitted with a digest.
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';

export interface SmartContractInterfaceRecord {
  id: string;
  organizationId: string;
  smartContractAddress: string;
  smartContractInterface: string;
  type: string;
  label: string;
  notes: string;
  createdAt: Date;
  updatedAt: Date;
}

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

function fromRow(row: InterfaceRow): SmartContractInterfaceRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    smartContractAddress: row.smart_contract_address,
    smartContractInterface: row.smart_contract_interface,
    type: row.type,
    label: row.label,
    notes: row.notes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertSmartContractInterface(
  tx: Queryable,
  record: Omit<SmartContractInterfaceRecord, 'updatedAt'> & { activityId: string; digest: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO smart_contract_interfaces
       (id, organization_id, activity_id, smart_contract_address, smart_contract_interface, type, label, notes,
        digest, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
    [record.id, record.organizationId, record.activityId, record.smartContractAddress, record.smartContractInterface,
      record.type, record.label, record.notes, record.digest, record.createdAt],
  );
}

/** True when the organization had the interface and it is now gone. */
export async function removeSmartContractInterface(tx: Queryable, organizationId: string, id: string): Promise<boolean> {
  const deleted = await tx.query('DELETE FROM smart_contract_interfaces WHERE id = $1 AND organization_id = $2 RETURNING id', [
    id,
    organizationId,
  ]);
  return deleted.length > 0;
}

export async function findSmartContractInterface(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<SmartContractInterfaceRecord | undefined> {
  const [row] = await db.query<InterfaceRow>(`SELECT ${COLUMNS} FROM smart_contract_interfaces WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ]);
  return row ? fromRow(row) : undefined;
}

/** A page of the organization's interfaces, newest first; an interface's size is that of its text. */
export async function listSmartContractInterfaces(
  db: Queryable,
  organizationId: string,
  page: PageRequest,
): Promise<Page<SmartContractInterfaceRecord>> {
  const found = await selectPage<InterfaceRow>(
    db,
    {
      table: 'smart_contract_interfaces',
      columns: COLUMNS,
      organizationId,
      // JSON escaping of the text in the answer adds a share; the fields around it about 1 KiB.
      size: '(octet_length(smart_contract_interface) * 5) / 4 + 1024',
    },
    page,
  );
  return { ...found, rows: found.rows.map(fromRow) };
}
