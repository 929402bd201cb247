// Who stamped a request, as authentication finds it: what the engine, the queries and the HTTP routes
// receive from src/auth/ (declared here, below them, so authentication imports none of them).
import type { CredentialType } from '../policy/index.ts';
import type { CredentialUse } from '../store/credentials.ts';
import type { ApiKeyKind } from '../wire/credentialKind.ts';
import type { VoteRecord } from '../store/votes.ts';

/** The scheme and credential type of a principal authenticated by a read-only session (X-Session). */
export const READ_ONLY_SESSION = 'READ_ONLY_SESSION';

/** The user as the credential lookup read it: its id, name, contacts and times, for the submitting vote. */
type VoteUser = Pick<VoteRecord, 'userId' | 'userName' | 'userEmail' | 'userPhoneNumber' | 'userCreatedAt' | 'userUpdatedAt'>;

/** Who stamped a request: the user of the organization whose credential verified, and the stamp. */
export interface Principal extends VoteUser {
  organizationId: string;
  /** How the request was authenticated: a stamp's scheme, or READ_ONLY_SESSION for an X-Session token (queries only). */
  scheme: 'SIGNATURE_SCHEME_TK_API_P256' | 'SIGNATURE_SCHEME_WEBAUTHN' | 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN' | typeof READ_ONLY_SESSION;
  /** hex: the compressed P-256 key for API keys and attested stamps; for WebAuthn the hex of the stored COSE key; "" for a read-only session. */
  publicKey: string;
  /** As sent in the stamp (hex DER for API keys and attested stamps, base64url for WebAuthn); "" for a read-only session. */
  signature: string;
  /** base64url, WebAuthn only. */
  credentialId?: string;
  /** WebAuthn only: what the passkey signed besides the challenge, base64url as sent in the stamp. */
  webauthn?: { authenticatorData: string; clientDataJson: string };
  /**
   * The organization the request acts in when it is not the body's `organizationId`: an attested stamp
   * sent to a parent stands for the user of the one sub-organization whose contact its token names, and
   * a sub-organization's credential sent with its parent's id (ActivityHandler.fromSubOrganization)
   * acts in its own sub-organization.
   */
  actsIn?: string;
  /** An attested stamp only: the contact its verification token names, which the login proves for the user. */
  attestedContact?: { email: string } | { phoneNumber: string };
  /**
   * The credential's type as policies see it (an API key, a session key, a passkey); READ_ONLY_SESSION
   * for a read-only session, which no policy sees: it submits and votes on nothing.
   */
  credentialType: CredentialType | typeof READ_ONLY_SESSION;
  /** How the statements of the request check, at their own moment, that the credential may still be used. */
  credential: CredentialUse;
}

/** The credential type, as policies and the ecosystem's objects name it, of a key of this kind. */
export function apiKeyCredentialType(kind: ApiKeyKind): CredentialType {
  if (kind === 'session') return 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256';
  if (kind === 'otp_auth') return 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256';
  if (kind === 'email_auth') return 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256';
  if (kind === 'recovery') return 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256';
  return 'CREDENTIAL_TYPE_API_KEY_P256';
}
