// The otp_login activity (ACTIVITY_TYPE_OTP_LOGIN_V2, and ACTIVITY_TYPE_OTP_LOGIN): turns a
// verification token into a session. The token (single use, taken by the activity's own statement)
// names a verified contact; the user of the organization with that contact gets `publicKey` as a
// session key, which stamps requests like an API key until the session ends; the answer's session
// JWT is in the hosted service's format, signed by the service's session key.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { clientSignatureProblem, CLIENT_SIGNATURE_SCHEME } from '../../../otp/clientSignature.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH, readVerificationToken, VERIFICATION_TOKEN_KEY, verifiedContact } from '../../../otp/verificationToken.ts';
import { check, take, write } from '../../../store/effects.ts';
import { findUserByContact } from '../../../store/users.ts';
import type { ActivityHandler, ExecutionContext } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { tokenReaches } from '../../../auth/tokenScope.ts';
import { checkSessionIntent, planSession, sessionParameterFields, sessionResultSchema, type SessionResult } from './sessionPlans.ts';

const clientSignature = z
  .strictObject(
    {
      publicKey: z
        .string({ error: 'must be a string: the public key the verification token is bound to' })
        .max(130, 'is longer than 130 characters')
        .describe("The key the verification token is bound to (its public_key: the client's key of verify_otp), P-256 in hex"),
      scheme: z.literal(CLIENT_SIGNATURE_SCHEME, { error: `must be ${CLIENT_SIGNATURE_SCHEME}` }).describe('Signature scheme'),
      message: z
        .string({ error: 'must be a string: the login message that was signed' })
        .max(1024, 'is longer than 1024 characters')
        .describe(
          'The login message that was signed: {"login":{"publicKey":<publicKey>},"tokenId":<the token\'s id>,"type":"USAGE_TYPE_LOGIN"} (@turnkey/core\'s getClientSignatureMessageForLogin)',
        ),
      signature: z
        .string({ error: 'must be a string: the signature in hex' })
        .max(160, 'is longer than 160 characters')
        .describe('ECDSA P-256 over SHA-256 of message by the token\'s key: raw r‖s hex (128 characters, what @turnkey/core sends) or DER hex'),
    },
    { error: objectExpected('must be an object {publicKey, scheme, message, signature}') },
  )
  .describe("Proof that the holder of the token's key asks for this session: required when the token is bound to a key (always for V2)");

function parameters(signatureRequired: boolean) {
  return z.strictObject(
    {
      verificationToken: z
        .string({ error: 'must be a string: the verificationToken that verify_otp returned' })
        .min(1, 'must not be empty; give the verificationToken that verify_otp returned')
        .max(MAX_VERIFICATION_TOKEN_LENGTH, `is longer than ${MAX_VERIFICATION_TOKEN_LENGTH} characters`)
        .describe("The verificationToken that verify_otp returned: Signet's, unexpired, of this organization and unused (it logs in once)"),
      publicKey: sessionParameterFields.publicKey,
      clientSignature: signatureRequired ? clientSignature : clientSignature.optional(),
      expirationSeconds: sessionParameterFields.expirationSeconds,
      invalidateExisting: sessionParameterFields.invalidateExisting,
      sessionProfileId: sessionParameterFields.sessionProfileId,
    },
    { error: objectExpected() },
  );
}

export const otpLoginV2Parameters = parameters(true);
export const otpLoginParameters = parameters(false);
type OtpLoginIntent = z.output<typeof otpLoginParameters>;

const resultSchema = sessionResultSchema;
type OtpLoginResult = SessionResult;

// Real points (the curve's generator and its double), so the example passes the schema it illustrates.
const EXAMPLE_SESSION_KEY = '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296';
const EXAMPLE_TOKEN_KEY = '037cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978';
const EXAMPLE = {
  verificationToken: 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpZCI6Ii4uLiJ9.c2lnbmF0dXJl',
  publicKey: EXAMPLE_SESSION_KEY,
  clientSignature: {
    publicKey: EXAMPLE_TOKEN_KEY,
    scheme: CLIENT_SIGNATURE_SCHEME as typeof CLIENT_SIGNATURE_SCHEME,
    message: `{"login":{"publicKey":"${EXAMPLE_SESSION_KEY}"},"tokenId":"5f0c2a9e-8d1b-4c3a-9e7f-1a2b3c4d5e6f","type":"USAGE_TYPE_LOGIN"}`,
    signature: '…raw r‖s or DER, hex',
  },
};

export const otpLoginV2: ActivityHandler<typeof otpLoginV2Parameters, OtpLoginResult> = {
  path: 'otp_login',
  activityType: 'ACTIVITY_TYPE_OTP_LOGIN_V2',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'PUBLIC_KEY_TAKEN'],
  summary: "Turns a verification token into a session: result `otpLoginResult.session`, and the client's key stamps as the user until it ends",
  parentMaySubmit: true,
  description:
    "Turns a verification token into a session: the user of the organization with the verified email or phone number gets `publicKey` as a session key, which stamps requests (X-Stamp) until the session ends; the answer's `session` is a JWT in the ecosystem's format. V2 requires `clientSignature`.",
  intentKey: 'otpLoginIntentV2',
  resultKey: 'otpLoginResult',
  parameters: otpLoginV2Parameters,
  resultSchema,
  example: EXAMPLE,
  execute: (context, intent) => planLogin(context, intent, true),
};

/** V1: clientSignature may be left out, but only for a token bound to no key (verify_otp V1 without publicKey). */
export const otpLogin: ActivityHandler<typeof otpLoginParameters, OtpLoginResult> = {
  path: 'otp_login',
  activityType: 'ACTIVITY_TYPE_OTP_LOGIN',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'PUBLIC_KEY_TAKEN'],
  summary: "Turns a verification token into a session: result `otpLoginResult.session`, and the client's key stamps as the user until it ends",
  parentMaySubmit: true,
  description: 'V1: as V2, but `clientSignature` may be left out for a token bound to no key (`verify_otp` V1 without `publicKey`).',
  intentKey: 'otpLoginIntent',
  resultKey: 'otpLoginResult',
  parameters: otpLoginParameters,
  resultSchema,
  example: EXAMPLE,
  execute: (context, intent) => planLogin(context, intent, false),
};

const TOKEN_FIELD = 'parameters.verificationToken';

async function planLogin(context: ExecutionContext, intent: OtpLoginIntent, signatureRequired: boolean) {
  const { organizationId, now } = context;
  checkSessionIntent(intent);
  const reading = readVerificationToken(intent.verificationToken, await context.keys.verifiers(VERIFICATION_TOKEN_KEY), now);
  if ('problem' in reading) throw invalidField(TOKEN_FIELD, reading.problem);
  const token = reading.claims;
  // A token made in the organization logs in there; one made in its parent, in any of the parent's
  // sub-organizations (the ecosystem's servers verify the code in the parent, then log the user into
  // its own sub-organization).
  if (!(await tokenReaches(context.db, token.organizationId, organizationId))) {
    throw invalidField(
      TOKEN_FIELD,
      `was issued in organization ${token.organizationId}; log in there, where the OTP was verified, or in one of its sub-organizations`,
    );
  }

  if (token.publicKey !== undefined) {
    if (intent.clientSignature === undefined) {
      throw invalidField(
        'parameters.clientSignature',
        'is required: the verification token is bound to a key, whose holder must sign the login message ' +
          '(getClientSignatureMessageForLogin) naming this publicKey',
      );
    }
    const problem = clientSignatureProblem(intent.clientSignature, { tokenId: token.id, tokenPublicKey: token.publicKey, sessionPublicKey: intent.publicKey });
    if (problem) throw invalidField('parameters.clientSignature', problem);
  } else if (signatureRequired) {
    throw invalidField(
      TOKEN_FIELD,
      'is bound to no key, so no clientSignature can match it; verify the code with verify_otp V2 (encryptedOtpBundle) ' +
        'or V1 with publicKey, or log in with ACTIVITY_TYPE_OTP_LOGIN and no clientSignature',
    );
  } else if (intent.clientSignature !== undefined) {
    throw invalidField('parameters.clientSignature', 'the verification token is bound to no key, so nothing can check this signature; leave it out');
  }

  const contact = verifiedContact(token);
  const user = await findUserByContact(context.db, organizationId, contact);
  const named = 'email' in contact ? `email address ${contact.email}` : `phone number ${contact.phoneNumber}`;
  if (!user) {
    throw notFound(
      'USER_NOT_FOUND',
      `no user of this organization has the ${named}; create the user first (create_users with ` +
        `${'email' in contact ? 'userEmail' : 'userPhoneNumber'}, or "signet user create"), then log in`,
    );
  }

  const session = await planSession(context, user.id, intent);
  return {
    result: session.result,
    effects: [
      check('userActive', [organizationId, user.id], notFound('USER_NOT_FOUND', `the user with the ${named} was removed; create the user again, then log in`)),
      ...session.effects,
      // The token is used by the activity's statement itself: two logins with one token, even at once, make one session.
      take('verificationToken', [{ id: token.id, organizationId, expiresAt: token.expiresAt }, 'login', context.activityId, now], () =>
        invalidField(TOKEN_FIELD, 'was already used to log in; verify a new code to log in again'),
      ),
      // The token proves the contact for the user it logs in (only while the user still has it), never
      // for the other users, elsewhere, who typed the same contact.
      write('markUserContactVerified', organizationId, user.id, contact, now),
    ],
  };
}
