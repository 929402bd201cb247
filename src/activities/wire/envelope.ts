// The request envelope shared by every activity. Parameters are only
// checked to be an object here; each handler's schema validates them. The descriptions are the
// OpenAPI document's.
import { z } from 'zod';

export const envelopeSchema = z.strictObject({
  type: z.string().max(128).describe('Activity type, e.g. ACTIVITY_TYPE_INIT_OTP_AUTH_V3: each endpoint names the types it accepts'),
  timestampMs: z
    .string()
    .regex(/^\d{1,16}$/, 'must be a string of digits: milliseconds since the Unix epoch, e.g. "1767225600000"')
    .describe(
      'Request timestamp in milliseconds (a numeric string). Used to verify that the request is live: it must be within ±5 minutes of the server clock (SIGNET_TIMESTAMP_TOLERANCE_MS); the same body submitted again later answers the stored activity',
    ),
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of an organization: the one the stamping credential belongs to'),
  parameters: z
    .record(z.string(), z.unknown(), { message: 'must be an object' })
    .describe('Intent data specific to the activity'),
  generateAppProofs: z
    .boolean()
    .optional()
    .describe(
      'Enables the generation and return of verifiability artifacts ("App Proofs"): the activity then carries appProofs. Optional; also accepted inside parameters, where the ecosystem\'s SDKs send it',
    ),
});

export type Envelope = z.infer<typeof envelopeSchema>;
