// `signet migrate`: applies the pending migrations (as a starting server does), or with --status lists
// the applied and pending ones, or with --dry-run applies the pending ones in one transaction and
// rolls it back. Each opens the store itself: on the embedded store, only while no server holds it.
// Neither --status nor --dry-run creates an embedded store that does not exist yet; they say that the
// first start will, from the image the build migrated (src/store/db.ts), so that none will be pending.
// A data folder that cannot be read is an error naming SIGNET_DATA_DIR (exit 2), not "no store".
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { UsageError, type Input } from './command.ts';

export async function migrateCommand(input: Input, config: Config): Promise<number> {
  const status = input.on('status');
  const dryRun = input.on('dry-run');
  if (status && dryRun) throw new UsageError('--status and --dry-run: give one of them (--dry-run already prints what is pending)');
  const json = input.on('json');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const [{ openConfiguredDatabase }, { dataFolderProblem, storeProblem }, migrations] = await Promise.all([
    import('../server.ts'),
    import('../store/startProblems.ts'),
    import('../store/migrate.ts'),
  ]);
  const embeddedDir = path.join(config.dataDir, 'pglite');
  /** Whether the embedded store exists; a folder that cannot be read is a ConfigError, not "no store". */
  const embeddedExists = () => {
    try {
      fs.statSync(path.join(embeddedDir, 'PG_VERSION'));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw dataFolderProblem(error, config.dataDir) ?? error;
    }
  };
  if (!config.databaseUrl && (status || dryRun) && !embeddedExists()) {
    if (json) out(JSON.stringify(status ? { applied: [], pending: [] } : { wouldApply: [], changed: false }));
    else {
      out(
        `no embedded store in ${embeddedDir} yet: the first \`signet serve\` or \`signet migrate\` makes it with ` +
          `this version's ${migrations.migrationNames().length} migrations already applied, so none will be pending`,
      );
    }
    return 0;
  }
  const db = await openConfiguredDatabase(config, `signet migrate${status ? ' --status' : dryRun ? ' --dry-run' : ''}`);
  try {
    if (status) {
      const { applied, pending } = await migrations.migrationStatus(db);
      if (json) {
        out(JSON.stringify({ applied, pending }));
        return 0;
      }
      for (const m of applied) out(`applied  ${m.name}  ${m.appliedAt.toISOString()}${m.known ? '' : '  (not a migration of this version: applied by a newer one)'}`);
      for (const name of pending) out(`pending  ${name}`);
      out(
        pending.length
          ? `${pending.length} pending: \`signet migrate\` applies them (a starting \`signet serve\` does too); \`signet migrate --dry-run\` tries them first`
          : `schema is up to date: ${applied.length} applied, none pending`,
      );
      return 0;
    }
    if (dryRun) {
      let applied: string[];
      try {
        applied = await migrations.dryRunMigrations(db);
      } catch (error) {
        if (!(error instanceof migrations.MigrationFailed)) throw error;
        throw new Error(`--dry-run: migration ${error.migration} would fail: ${(error.cause as Error).message}; nothing was changed`);
      }
      if (json) {
        out(JSON.stringify({ wouldApply: applied, changed: false }));
        return 0;
      }
      for (const name of applied) out(`would apply ${name}`);
      out(applied.length ? `dry run: ${applied.length} pending migrations applied and rolled back; nothing was changed` : 'dry run: none pending; nothing was changed');
      return 0;
    }
    // A user that may not create the tables is named as a start would name it.
    const applied = await migrations.migrate(db).catch((error: unknown) => {
      throw storeProblem(error, config);
    });
    if (json) out(JSON.stringify({ applied }));
    else out(applied.length ? `applied ${applied.join(', ')}` : 'schema is up to date');
    return 0;
  } finally {
    await db.close();
  }
}
