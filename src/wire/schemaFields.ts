// The fields of an object schema as a line of the docs writes them: `{a, b?}`, optional ones marked.
import { z } from 'zod';

/** `{a, b?}` for an object schema (a field that takes undefined is optional); undefined for any other schema. */
export function schemaFields(schema: z.ZodType | undefined): string | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => (field.safeParse(undefined).success ? `${name}?` : name));
  return `{${fields.join(', ')}}`;
}
