// A passkey's registration, verified for a request: the pure check of src/keys/, its refusal
// answered as the 400 naming the field (create_users, create_authenticators, the admin API).
import { invalidField } from '../../../errors.ts';
import { RegistrationRejected, verifyAuthenticatorRegistration, type RegisteredCredential, type RegistrationOptions } from '../../../keys/verifyAuthenticatorRegistration.ts';

export async function verifiedRegistration(response: unknown, options: RegistrationOptions): Promise<RegisteredCredential> {
  try {
    return await verifyAuthenticatorRegistration(response, options);
  } catch (error) {
    if (error instanceof RegistrationRejected) throw invalidField(error.field, error.description);
    throw error;
  }
}
