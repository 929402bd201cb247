// What the OpenAPI document says beyond the request schemas: the error shape, the
// answers of the service routes (the admin API's are src/admin/answers.ts), the tags, and the
// document's introduction (how a stamp is built, how to point the ecosystem's clients at Signet).
import { z } from 'zod';
import { REASONS, type Reason, TURNKEY_ERROR_DETAIL_TYPE } from '../errors.ts';
import { SERVICE_KEYS } from '../activities/lifecycle/serviceKeys.ts';

/** The detail every error answer carries: its reason, one of the table in src/errors.ts. */
const turnkeyErrorDetail = z
  .strictObject({
    '@type': z.literal(TURNKEY_ERROR_DETAIL_TYPE).describe('The kind of detail'),
    turnkeyErrorCode: z
      .enum(Object.keys(REASONS) as [Reason, ...Reason[]])
      .describe('Why the request was refused or failed: a stable name a client may branch on (each status lists its reasons)'),
  })
  .meta({ id: 'TurnkeyErrorDetail' });

export const errorSchema = z
  .strictObject({
    code: z
      .number()
      .int()
      .describe('gRPC status code: 3 INVALID_ARGUMENT (400, 413, 415, 431), 4 DEADLINE_EXCEEDED (408), 5 NOT_FOUND, 7 PERMISSION_DENIED, 8 RESOURCE_EXHAUSTED (429), 13 INTERNAL, 14 UNAVAILABLE, 16 UNAUTHENTICATED'),
    message: z.string().describe('What is wrong and how to fix it; a field violation starts with its field, e.g. "parameters.contact: …"'),
    details: z
      .array(
        z.union([
          z.strictObject({
            '@type': z.literal('type.googleapis.com/google.rpc.BadRequest').describe('The kind of detail'),
            fieldViolations: z
              .array(
                z.strictObject({
                  field: z.string().describe('The field, as the request wrote it (parameters.users[1].userEmail)'),
                  description: z.string().describe('What is wrong with it'),
                }),
              )
              .describe('Each field that is wrong'),
          }),
          turnkeyErrorDetail,
        ]),
      )
      .describe('A google.rpc.BadRequest naming each wrong field (when fields are wrong), then always a TurnkeyErrorDetail with the reason'),
  })
  .meta({ id: 'Error', description: 'Every refusal and failure, with its HTTP status. Every answer carries X-Request-Id' });

const uncompressedKey = (description: string) => z.string().regex(/^04[0-9a-f]{128}$/).describe(`${description}; an uncompressed P-256 key, hex (130 characters)`);

export const serviceAnswers = {
  status: z.strictObject({ status: z.literal('ok').describe('The check passed') }),
  unavailable: z.strictObject({ status: z.literal('unavailable').describe('The database did not answer within SIGNET_DATABASE_TIMEOUT_MS') }),
  jwks: z.strictObject({
    keys: z
      .array(
        z.strictObject({
          kty: z.literal('EC').describe('Key type'),
          crv: z.literal('P-256').describe('Curve'),
          x: z.string().describe('x coordinate, base64url'),
          y: z.string().describe('y coordinate, base64url'),
          kid: z.string().describe("Key id, the kid of the tokens' header"),
          alg: z.literal('ES256').describe('Algorithm'),
          use: z.literal('sig').describe('Use'),
        }),
      )
      .describe('Public keys of the verification tokens (retired ones too); empty until the first is made'),
  }),
  signetKeys: z.strictObject({
    [SERVICE_KEYS.otpEncryptionBundle.published]: uncompressedKey("Signs init_otp's otpEncryptionTargetBundle: encryptOtpCodeToBundle's fourth argument"),
    [SERVICE_KEYS.verificationToken.published]: uncompressedKey("Signs verify_otp's verificationToken: verifyOtpVerificationToken's override"),
    [SERVICE_KEYS.session.published]: uncompressedKey("Signs otp_login's session JWT: verifySessionJwtSignature's override"),
    [SERVICE_KEYS.appProof.published]: uncompressedKey('Signs App Proofs: the second half of their publicKey'),
    [SERVICE_KEYS.enclaveSigner.published]: uncompressedKey(
      "Signs export and import bundles: decryptExportBundle's, encryptWalletToBundle's and encryptPrivateKeyToBundle's dangerouslyOverrideSignerPublicKey",
    ),
  }),
};

export const TAGS = [
  {
    name: 'activities',
    description:
      'POST /public/v1/submit/<activity>: a stamped JSON envelope {type, timestampMs, organizationId, parameters}. Each creates an activity in one transaction and answers it; submitting the same body again answers the same activity with no new effect (that is how clients poll).',
  },
  {
    name: 'queries',
    description:
      "POST /public/v1/query/<query>: stamped like activities, read-only, scoped to the body's organizationId (another organization's object is a 404). Lists are paged newest first with paginationOptions.",
  },
  {
    name: 'admin',
    description:
      '/admin/v1: the operator API, with Authorization: Bearer <SIGNET_ADMIN_TOKEN>, answered only to SIGNET_ADMIN_HOST (loopback by default); the signet CLI calls it. Lists take limit 1–500 (default 50), after = the last id of a page, before = the first.',
  },
  {
    name: 'auth proxy',
    description:
      "POST /v1/<route> with X-Auth-Proxy-Config-ID: what a page with no backend calls through @turnkey/core's authProxyUrl (sign-up and OTP login), done as a configuration's dedicated user of its organization (signet authproxy create).",
  },
  { name: 'service', description: 'Health, metrics, the public keys of what Signet signs, and this reference. No stamp.' },
];

/** info.description: how to reach Signet with the ecosystem's clients, how a stamp is built, errors and limits. */
export const INTRODUCTION = `Signet accepts signed ("stamped") JSON activities over HTTP, in the wire format of the Turnkey ecosystem: it verifies the stamp over the exact bytes received, validates the intent, executes it in one database transaction, keeps it as an auditable activity and answers with the activity object.

## Using the ecosystem's clients

\`@turnkey/http\` with \`@turnkey/api-key-stamper\` or \`@turnkey/webauthn-stamper\` (and \`@turnkey/sdk-server\`, \`@turnkey/sdk-browser\`) work against Signet unchanged: change the base URL to this server's.

\`\`\`ts
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';

const client = new TurnkeyClient({ baseUrl: 'http://127.0.0.1:8080' }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey }));
const { activity } = await client.initOtpAuth({
  type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
  timestampMs: String(Date.now()),
  organizationId,
  parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Example Wallet' },
});
\`\`\`

\`@turnkey/sdk-server\` takes it as \`apiBaseUrl\`. The verifiers of \`@turnkey/crypto\` need Signet's keys as their override argument: see \`GET /.well-known/signet-keys.json\`.

## How a stamp is built

Every request under \`/public/v1\` carries exactly one of two headers, computed over the exact bytes of the body, which are then sent unchanged (a re-serialised body no longer matches).

**X-Stamp** (an API key, or a session key of \`otp_login\`):

1. \`signature\` = ECDSA P-256 over SHA-256 of the body bytes with the private key, encoded as strict DER, in hex.
2. The stamp is the JSON \`{"publicKey": <the public key, hex: compressed 02…/03… or uncompressed 04…>, "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": <hex>}\`.
3. \`X-Stamp\` = base64url of that JSON (plain JSON is accepted too).

**X-Stamp-WebAuthn** (a passkey):

1. The challenge is the UTF-8 bytes of the lowercase hex SHA-256 of the body: \`navigator.credentials.get({publicKey: {challenge, rpId, …}})\`.
2. The stamp is the JSON \`{"credentialId", "authenticatorData", "clientDataJson", "signature"}\`, each as the assertion returned it, base64url; the header holds that JSON as it is (or base64url-encoded). \`clientDataJSON\` must say \`webauthn.get\`, an origin of \`SIGNET_WEBAUTHN_ORIGINS\`, and \`authenticatorData\` the SHA-256 of \`SIGNET_WEBAUTHN_RP_ID\` with the user-present flag. An EC signature must be strict DER.

Then: the credential must belong to a user of the body's \`organizationId\` (else 403) and be neither revoked nor expired (else 401); \`timestampMs\` must be within ±5 minutes of the server clock (else 401); the activity's \`fingerprint\` is \`sha256:\` + hex SHA-256 of the body, and the same body submitted again answers the same activity.

## Errors

Every refusal is \`{"code": <gRPC code>, "message": "…", "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field", "description"}]}]}\` (the Error schema); every answer carries \`X-Request-Id\`.

| HTTP | code | when |
|---|---|---|
| 400 | 3 | malformed JSON, schema or rule violation (unknown fields are named), wrong \`type\` |
| 401 | 16 | missing or malformed stamp, bad signature, unknown/revoked/expired key, stale \`timestampMs\` |
| 403 | 7 | valid credential of another organization |
| 404 | 5 | unknown path, unknown referenced object |
| 408 | 4 | the request did not arrive within SIGNET_REQUEST_TIMEOUT_MS (30 s) |
| 413 | 3 | body over 1 MiB |
| 415 | 3 | not \`application/json\` |
| 431 | 3 | request headers over 16 KiB |
| 429 | 8 | OTP rate limit, or too many failed authentications from one address; \`Retry-After\` says when to retry |
| 500 / 503 | 13 / 14 | server or database fault; nothing was stored, retry with the same body |

## Limits

Body at most 1 MiB, headers 16 KiB, JSON nesting 32 levels (128 inside \`smartContractInterface\`), strict UTF-8, no key \`__proto__\`, \`constructor\` or \`prototype\`, no NUL or unpaired surrogate. Each field's own bounds are in its schema.`;
