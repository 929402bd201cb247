// An OTP code as the outbox keeps it until delivered: sealed (wire/sealed.ts) under its own label,
// the outbox row's id as associated data, so a database dump alone reveals no code and a sealed code
// cannot be moved to another row.
import { seal, unseal } from '../wire/sealed.ts';

const LABEL = 'signet outbox encryption v1';

/** base64url(nonce ‖ ciphertext ‖ tag). */
export const encryptCode = (secret: Buffer, outboxId: string, code: string): string => seal(secret, LABEL, outboxId, Buffer.from(code, 'utf8'));

/** Throws when the ciphertext was changed, belongs to another row, or was made with another secret. */
export const decryptCode = (secret: Buffer, outboxId: string, encrypted: string): string => unseal(secret, LABEL, outboxId, encrypted).toString('utf8');
