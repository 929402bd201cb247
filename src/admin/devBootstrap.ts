// First start on an empty embedded store: create a "Development" organization with a root user and
// an API key, and write dev-credentials.json so a developer can submit activities at once.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../store/db.ts';
import { countOrganizations, createOrganization } from './organizations.ts';

export interface DevCredentials {
  baseUrl: string;
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

export function devCredentialsPath(config: Config): string {
  return path.join(config.dataDir, 'dev-credentials.json');
}

/** Returns the credentials it wrote, or undefined when the store already had organizations. */
export async function bootstrapDevelopment(db: Database, config: Config, baseUrl: string): Promise<DevCredentials | undefined> {
  if (db.kind !== 'pglite' || (await countOrganizations(db)) > 0) return undefined;
  const created = await createOrganization(db, { name: 'Development', userName: 'root', apiKeyName: 'development key' });
  const credentials: DevCredentials = {
    baseUrl,
    organizationId: created.organizationId,
    userId: created.userId,
    apiKeyId: created.apiKeyId,
    apiPublicKey: created.apiPublicKey,
    apiPrivateKey: created.apiPrivateKey!,
  };
  const file = devCredentialsPath(config);
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return credentials;
}

/** Said once, on the start that wrote the file (the start-up summary lists the example commands). */
export function devCredentialsHelp(file: string): string {
  return `Development credentials written to ${file}: the organization "Development", its root user and an API key, which the examples use`;
}
