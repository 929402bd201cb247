// The `signet` command (bin/signet.js runs this module compiled): finds the command in the table of
// src/cli/commands.ts, answers --help, -h and --version, and turns failures into exit codes: 0 done,
// 1 the action failed, 2 a wrong command line, a bad configuration or an embedded store in use.
import { COMMANDS } from './cli/commands.ts';
import { commandHelp, findCommand, helpPage, overview, parseCommand, UsageError } from './cli/command.ts';
import { VERSION } from './cli/packageInfo.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { EmbeddedStoreInUse } from './store/embeddedLock.ts';

async function run(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined) throw new UsageError('give a command', overview(COMMANDS));
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    // The page of the command and subcommand named before it: `signet org create --name x --help`.
    const words = first.startsWith('-') ? [] : argv.filter((arg) => !arg.startsWith('-')).slice(0, 2);
    process.stdout.write(`${helpPage(COMMANDS, words)}\n`);
    return 0;
  }
  const { command, rest } = findCommand(COMMANDS, argv);
  let config: Config | undefined;
  try {
    return await command.run(parseCommand(command, rest), { config: () => (config ??= loadConfig()) });
  } catch (error) {
    // A handler's usage error (an unreadable --html FILE) shows its own command's usage.
    throw error instanceof UsageError && error.usage === undefined ? new UsageError(error.message, commandHelp(command)) : error;
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`signet: ${error.message}\n\n${error.usage ?? overview(COMMANDS)}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`signet: configuration error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof EmbeddedStoreInUse) {
      process.stderr.write(`signet: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`signet: ${(error as Error).message}\n`);
    return 1;
  }
}
