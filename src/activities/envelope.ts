// The request envelope shared by every activity (seed §2.1, DESIGN §2.1). Parameters are only
// checked to be an object here; each handler's schema validates them.
import { z } from 'zod';

export const envelopeSchema = z.strictObject({
  type: z.string().max(128),
  timestampMs: z
    .string()
    .regex(/^\d{1,16}$/, 'must be a string of digits: milliseconds since the Unix epoch, e.g. "1767225600000"'),
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }),
  parameters: z.record(z.string(), z.unknown(), { message: 'must be an object' }),
  generateAppProofs: z.boolean().optional(),
});

export type Envelope = z.infer<typeof envelopeSchema>;
