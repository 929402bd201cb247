// The signed-in session, kept in IndexedDB (database "signet-console", one record): the organization,
// the user, and the credential to stamp with — for an API key its non-extractable CryptoKey (stored as
// the key object itself, never as text), for a passkey nothing but the fact (the browser keeps it).
// Signing out deletes the record.
import { apiKeyStamper } from './apiKey.ts';
import { passkeyStamper } from './passkey.ts';
import type { Stamper } from './stamper.ts';

export interface Session {
  organizationId: string;
  organizationName: string;
  userId: string;
  userName: string;
  credential: { kind: 'apiKey'; publicKey: string; privateKey: CryptoKey } | { kind: 'passkey' };
}

const DATABASE = 'signet-console';
const STORE = 'session';
const KEY = 'current';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = act(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result as T);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

export function saveSession(session: Session): Promise<void> {
  return run('readwrite', (store) => store.put(session, KEY));
}

export async function loadSession(): Promise<Session | undefined> {
  try {
    return (await run<Session | undefined>('readonly', (store) => store.get(KEY))) ?? undefined;
  } catch {
    return undefined;
  }
}

export function forgetSession(): Promise<void> {
  return run('readwrite', (store) => store.delete(KEY));
}

export function stamperOf(credential: Session['credential']): Stamper {
  return credential.kind === 'apiKey' ? apiKeyStamper(credential) : passkeyStamper();
}
