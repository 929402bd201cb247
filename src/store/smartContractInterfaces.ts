// Stored ABIs and IDLs (table smart_contract_interfaces), kept exactly as submitted with a digest.
import type { Queryable } from './db.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import { pageOf, pageStatement, type Page, type PageRequest } from './pages.ts';
import { raw, run, sql, type Sql } from './sql.ts';

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
const ALIASED_COLUMNS = COLUMNS.split(', ').map((column) => `a.${column}`).join(', ');

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

/** Writes the interface as a row of the activity being written (`activity`, a CTE yielding its id). */
export function insertSmartContractInterface(
  activity: Sql,
  record: Omit<SmartContractInterfaceRecord, 'updatedAt'> & { digest: string },
): Sql {
  return sql`INSERT INTO smart_contract_interfaces
               (id, organization_id, activity_id, smart_contract_address, smart_contract_interface, type, label, notes,
                digest, created_at, updated_at)
             SELECT ${record.id}::uuid, ${record.organizationId}::uuid, id, ${record.smartContractAddress},
                    ${record.smartContractInterface}, ${record.type}, ${record.label}, ${record.notes}, ${record.digest},
                    ${record.createdAt}::timestamptz, ${record.createdAt}::timestamptz
               FROM ${activity}`;
}

/** A gate: removes the organization's interface, yielding a row when there was one. */
export function removeSmartContractInterface(organizationId: string, id: string): (proceed: Sql) => Sql {
  return (proceed) => sql`DELETE FROM smart_contract_interfaces
                           WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid AND ${proceed}
                          RETURNING id`;
}

/** The organization's interface, on behalf of a credential checked in the same statement. */
export async function findSmartContractInterfaceFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  id: string,
): Promise<{ refused?: CredentialState; record?: SmartContractInterfaceRecord }> {
  const { refused, rows } = await runWithCredential<InterfaceRow>(
    db,
    use,
    sql`SELECT ${raw(COLUMNS)} FROM smart_contract_interfaces WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
  );
  return refused ? { refused } : rows[0] ? { record: fromRow(rows[0]) } : {};
}

/** A page of the organization's interfaces, newest first, on behalf of a credential; an interface's size is that of its text. */
export async function listSmartContractInterfacesFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  page: PageRequest,
): Promise<{ refused?: CredentialState; page?: Page<SmartContractInterfaceRecord> }> {
  const statement = pageStatement(
    {
      table: 'smart_contract_interfaces',
      columns: raw(ALIASED_COLUMNS),
      organizationId,
      // JSON escaping of the text in the answer adds a share; the fields around it about 1 KiB.
      size: sql`(octet_length(a.smart_contract_interface) * 5) / 4 + 1024`,
    },
    page,
  );
  const { refused, rows } = await runWithCredential<Record<string, unknown>>(db, use, statement);
  if (refused) return { refused };
  const found = pageOf<InterfaceRow>(rows, page);
  return { page: { ...found, rows: found.rows.map(fromRow) } };
}

/** At most this many contracts or programs are looked up for one transaction (a Solana message names at most 256 accounts). */
const MAX_LOOKED_UP = 256;

/**
 * The organization's interfaces stored for the contracts a transaction names: Ethereum ABIs whose
 * address is one of `ethereum` (matched without case), Solana IDLs whose program id is one of
 * `solana` (exactly), newest first (where one address has several, decoding takes the newest).
 */
export async function findInterfacesFor(
  db: Queryable,
  organizationId: string,
  addresses: { ethereum: readonly string[]; solana: readonly string[] },
): Promise<Pick<SmartContractInterfaceRecord, 'smartContractAddress' | 'smartContractInterface' | 'type' | 'label'>[]> {
  const ethereum = [...new Set(addresses.ethereum.map((address) => address.toLowerCase()))].slice(0, MAX_LOOKED_UP);
  const solana = [...new Set(addresses.solana)].slice(0, MAX_LOOKED_UP);
  if (ethereum.length === 0 && solana.length === 0) return [];
  const rows = await run<Pick<InterfaceRow, 'smart_contract_address' | 'smart_contract_interface' | 'type' | 'label'>>(
    db,
    sql`SELECT smart_contract_address, smart_contract_interface, type, label
          FROM smart_contract_interfaces
         WHERE organization_id = ${organizationId}::uuid
           AND ((type = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' AND lower(smart_contract_address) = ANY(${ethereum}::text[]))
             OR (type = 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' AND smart_contract_address = ANY(${solana}::text[])))
         ORDER BY created_at DESC, id`,
  );
  return rows.map((row) => ({ smartContractAddress: row.smart_contract_address, smartContractInterface: row.smart_contract_interface, type: row.type, label: row.label }));
}
