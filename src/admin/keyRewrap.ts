// `signet keys rewrap` (POST /admin/v1/keys/rewrap): every sealed value of the store (each column of
// store/sealedColumns.ts) not sealed under the process's configured KEK is opened with the KEK it
// names and sealed again under the configured one, while the server serves. Row by row, each write
// guarded by the value read (compare and set): a value someone changed meanwhile is read again, so a
// concurrent write is never lost. Running it again finds every value current. A value no reachable
// KEK opens is counted and named in the log (table, row, organization, the KEK it names), never
// shown; the others go on.
import { KeyMaterialUnreadable } from '../keys/custody/keyEncryptionKey.ts';
import type { KeyRing } from '../keys/custody/keyRing.ts';
import { resealKeyMaterial, sealedUnder } from '../keys/custody/sealKeyMaterial.ts';
import type { Queryable } from '../store/db.ts';
import { replaceSealedValue, SEALED_COLUMNS, sealedValue, sealedValuesAfter, type SealedColumn, type SealedValue } from '../store/sealedColumns.ts';

/** Values read per statement. */
const PAGE = 100;
/** Times a row changed under the rewrap is read again before it is left for a later run (counted unreadable). */
const ATTEMPTS = 5;

export interface RewrapCounts {
  /** The KEK values are sealed under now. */
  kekId: string;
  rewrapped: number;
  alreadyCurrent: number;
  unreadable: number;
}

export interface RewrapLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Re-seals every value not under `kek.id`; the counts of what it did. */
export async function rewrapKeyMaterial(db: Queryable, kek: KeyRing, log: RewrapLog, columns: readonly SealedColumn[] = SEALED_COLUMNS): Promise<RewrapCounts> {
  const counts: RewrapCounts = { kekId: kek.id, rewrapped: 0, alreadyCurrent: 0, unreadable: 0 };
  for (const at of columns) {
    let after: string | undefined;
    for (;;) {
      const page = await sealedValuesAfter(db, at, after, PAGE);
      for (const value of page) counts[await rewrapOne(db, kek, log, at, value)]++;
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.rowId;
    }
  }
  return counts;
}

async function rewrapOne(db: Queryable, kek: KeyRing, log: RewrapLog, at: SealedColumn, value: SealedValue): Promise<'rewrapped' | 'alreadyCurrent' | 'unreadable'> {
  const context = { organizationId: value.organizationId, rowId: value.rowId, kind: at.kind };
  const row = { table: at.table, column: at.column, rowId: value.rowId, organizationId: value.organizationId };
  let sealed: string | undefined = value.sealed;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (sealed === undefined) return 'alreadyCurrent'; // gone meanwhile: nothing left to re-seal
    if (sealedUnder(sealed) === kek.id) return 'alreadyCurrent';
    let next: string;
    try {
      next = await resealKeyMaterial(kek, context, sealed);
    } catch (error) {
      if (!(error instanceof KeyMaterialUnreadable)) throw error;
      log.warn({ ...row, sealedUnder: sealedUnder(sealed) ?? null, problem: error.problem }, `keys rewrap: cannot open this value: ${error.message}`);
      return 'unreadable';
    }
    if (await replaceSealedValue(db, at, value.rowId, sealed, next)) return 'rewrapped';
    sealed = await sealedValue(db, at, value.rowId); // written meanwhile: that value is the one to keep
  }
  log.warn(row, `keys rewrap: the value changed under each of ${ATTEMPTS} attempts; left for the next run`);
  return 'unreadable';
}
