// `signet org create`: the admin route that creates an organization with a root user and an API key,
// which prints the key pair (the private key once, as apikey create does) and writes it to a credentials file the CLI and the examples find:
// --credentials-file FILE, else SIGNET_DATA_DIR/credentials.json when the server called is the one
// running from that data folder (a file there is for that server only). The file names its server
// (baseUrl), is written with mode 0600, and an existing one is replaced only with --force.
import fs from 'node:fs';
import path from 'node:path';
import type { AdminRoutes } from '../http/adminApi.ts';
import { adminClient } from './adminClient.ts';
import { adminRequest } from './adminRequest.ts';
import { UsageError, type Command, type Flag } from './command.ts';
import { print } from './output.ts';
import { flagsNamingFields } from './serverError.ts';
import { CREDENTIALS_FILE, runningServer, sameServer, SERVER_FILE, writeCredentialsFile } from './serverLocation.ts';

interface CreatedOrganization {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey?: string;
  [field: string]: unknown;
}

const flags: Record<string, Flag> = {
  'credentials-file': {
    type: 'string',
    value: 'FILE',
    description: `write the key to FILE (default: SIGNET_DATA_DIR/${CREDENTIALS_FILE} when the server is the one running from SIGNET_DATA_DIR)`,
  },
  force: { type: 'boolean', description: 'replace the credentials file when it exists' },
  json: { type: 'boolean', description: 'print the answer as JSON' },
};

export function orgCreateCommand(route: AdminRoutes['createOrganization']): Command {
  const cli = route.cli!;
  return {
    name: cli.name,
    sub: cli.sub,
    summary: cli.summary,
    flags: { ...flagsNamingFields(cli.flags), ...flags },
    admin: true,
    async run(input, context) {
      const config = context.config();
      const client = adminClient(config);
      const force = input.on('force');
      const given = input.get('credentials-file');
      // Where the key goes, decided before anything is created: a file given that exists is a wrong command line.
      let file: string | undefined;
      let notWritten = '';
      if (given !== undefined) {
        file = path.resolve(given);
      } else if (sameServer(runningServer(config.dataDir) ?? '', client.server.url)) {
        file = path.join(config.dataDir, CREDENTIALS_FILE);
      } else {
        notWritten =
          `no credentials file written: the server at ${client.server.url} is not the one running from SIGNET_DATA_DIR ` +
          `(${path.join(config.dataDir, SERVER_FILE)} does not name it); give --credentials-file FILE to write one`;
      }
      if (given !== undefined && !force && fs.existsSync(file!)) {
        throw new UsageError(`--credentials-file: ${file} exists; give --force to replace it, or another file`);
      }

      const { path: routePath, body } = adminRequest(route, cli.flags, input);
      const answer = await client.call<CreatedOrganization>('POST', routePath, body);

      let written: string | undefined;
      if (file !== undefined && answer.apiPrivateKey !== undefined) {
        const credentials = {
          baseUrl: client.server.url,
          organizationId: answer.organizationId,
          userId: answer.userId,
          apiKeyId: answer.apiKeyId,
          apiPublicKey: answer.apiPublicKey,
          apiPrivateKey: answer.apiPrivateKey,
        };
        try {
          if (writeCredentialsFile(file, credentials, force)) written = file;
          else notWritten = `${file} exists (another key's): not replaced; give --force to replace it, or --credentials-file FILE for another file`;
        } catch (error) {
          notWritten = `cannot write ${file}: ${(error as Error).message}`;
        }
      }

      print(input.on('json') && written ? { ...answer, credentialsFile: written } : answer, input, cli.output && 'secretFields' in cli.output ? cli.output.secretFields : []);
      const notes = [
        written === undefined
          ? notWritten
          : given === undefined
            ? `credentials written to ${written} (mode 0600, for ${client.server.url}): the signet policy, quorum and activity commands and the examples find them there`
            : `credentials written to ${written} (mode 0600, for ${client.server.url}): set SIGNET_CREDENTIALS=${written} (or give --credentials ${written}) for the signet policy, quorum and activity commands and the examples`,
      ].filter(Boolean);
      for (const note of notes) process.stderr.write(`signet: ${note}\n`);
      return 0;
    },
  };
}
