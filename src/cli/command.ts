// What a `signet` command is (its name, flags, arguments and handler), and what follows from the
// declaration alone: parsing a command line (node:util parseArgs; a required flag missing, an unknown
// one or a bad value is a UsageError naming it), and the usage lines and help pages. The commands
// themselves are declared in commands.ts.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';

/** A wrong command line: exit code 2, with the message and the usage of the command it was for. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The help page to show with the message; the running command's when not given. */
    readonly usage?: string,
  ) {
    super(message);
  }
}

export interface Flag {
  /** `integer`: a whole number, given as digits. */
  type: 'string' | 'boolean' | 'integer';
  /** What the value is, in usage lines: ID, N, FILE (not for boolean flags). */
  value?: string;
  required?: boolean;
  /** May be given several times (`--key A --key B`). */
  multiple?: boolean;
  description: string;
  /**
   * The field of the request its value fills (`userName`, `parameters.policyName`): where the
   * server's error names that field, the message names the flag instead (serverError.ts).
   */
  field?: string;
}

export interface Argument {
  name: string;
  description: string;
  optional?: boolean;
  /** The field of the request it fills, as for a flag. */
  field?: string;
}

/** The parsed command line of one command; required flags are present. */
export interface Input {
  args: string[];
  /** A string or integer flag's value, undefined when not given. */
  get(name: string): string | undefined;
  /** A required flag's value. */
  need(name: string): string;
  /** A boolean flag. */
  on(name: string): boolean;
  /** Every value of a multiple flag. */
  all(name: string): string[];
}

export interface Context {
  /** The configuration, read and checked when first asked for (a ConfigError names the variable). */
  config(): Config;
}

export interface Command {
  name: string;
  sub?: string;
  /** One line, for the command list, docs/cli.md and the help page. */
  summary: string;
  flags: Record<string, Flag>;
  args?: Argument[];
  /** It calls the running server's admin API (its help page says how). */
  admin?: true;
  /** It acts as a user of an organization, stamping with an API key (its help page says how). */
  stamped?: true;
  run(input: Input, context: Context): Promise<number> | number;
}

export const ADMIN_NOTE =
  'Admin commands talk to the running server at SIGNET_URL, else the one running from SIGNET_DATA_DIR\n' +
  '(default .signet), else http://127.0.0.1:8080, with SIGNET_ADMIN_TOKEN or the token file the server\n' +
  'wrote into SIGNET_DATA_DIR.';

export const USER_NOTE =
  'Policy, quorum and activity commands act as a user of an organization: they stamp their requests\n' +
  'with the API key of --credentials FILE, else SIGNET_CREDENTIALS, else SIGNET_DATA_DIR/credentials.json\n' +
  '(signet org create writes it), else SIGNET_DATA_DIR/dev-credentials.json, and send them to SIGNET_URL,\n' +
  "else the server running from SIGNET_DATA_DIR, else the one the file names (a file naming another server\n" +
  "is refused); the organization's authorization decides.";

export function commandName(command: Pick<Command, 'name' | 'sub'>): string {
  return command.sub ? `${command.name} ${command.sub}` : command.name;
}

/** `signet org create --name N [--json]`. */
export function usageLine(command: Command): string {
  const args = (command.args ?? []).map((a) => (a.optional ? `[${a.name}]` : a.name));
  const flags = Object.entries(command.flags).map(([name, flag]) => {
    const text = flag.type === 'boolean' ? `--${name}` : `--${name} ${flag.value}`;
    if (flag.required && flag.multiple) return `${text} [${text}]...`;
    return flag.required ? text : `[${text}]${flag.multiple ? '...' : ''}`;
  });
  return ['signet', commandName(command), ...args, ...flags].join(' ');
}

const WIDTH = 100;

/** `text` in lines of at most `width` characters, broken between words. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** Two columns, the second starting at `at` and wrapped; a first column too long for it puts the second on the next line. */
function columns(rows: Array<[string, string]>, at: number): string[] {
  const indent = ' '.repeat(at);
  return rows.map(([left, right]) => {
    const [first, ...more] = wrap(right, WIDTH - at).map((line) => indent + line);
    const head = left.length + 2 <= at ? [left + first!.slice(left.length)] : [left, first!];
    return [...head, ...more].join('\n');
  });
}

/** The help page of one command: usage, summary, arguments and options. */
export function commandHelp(command: Command): string {
  const options: Array<[string, string]> = Object.entries(command.flags).map(([name, flag]) => [
    `  --${name}${flag.type === 'boolean' ? '' : ` ${flag.value}`}`,
    `${flag.description}${flag.required ? ' (required)' : ''}${flag.multiple ? ' (repeatable)' : ''}`,
  ]);
  options.push(['  -h, --help', 'show this help']);
  const args = command.args ?? [];
  return [
    `Usage: ${usageLine(command)}`,
    '',
    command.summary,
    ...(args.length ? ['', 'Arguments:', ...columns(args.map((a) => [`  ${a.name}`, a.description]), 28)] : []),
    '',
    'Options:',
    ...columns(options, 28),
    ...(command.admin ? ['', ADMIN_NOTE] : []),
    ...(command.stamped ? ['', USER_NOTE] : []),
  ].join('\n');
}

/** The help page of a command with subcommands: each subcommand's usage and summary. */
export function groupHelp(name: string, commands: readonly Command[]): string {
  const group = commands.filter((c) => c.name === name);
  return [
    `Usage: signet ${name} ${group.map((c) => c.sub).join('|')} [options]`,
    '',
    ...group.flatMap((c) => [`  ${usageLine(c)}`, `      ${c.summary}`]),
    '',
    `Run \`signet ${name} SUBCOMMAND --help\` for its options.`,
    ...(group.some((c) => c.admin) ? ['', ADMIN_NOTE] : []),
    ...(group.some((c) => c.stamped) ? ['', USER_NOTE] : []),
  ].join('\n');
}

/** `signet help`: every command with its summary. */
export function overview(commands: readonly Command[]): string {
  return [
    'Usage: signet <command> [options]',
    '',
    'Commands:',
    ...columns(commands.map((c) => [`  ${usageLine(c).slice('signet '.length)}`, c.summary]), 42),
    '',
    'Run `signet help COMMAND [SUB]` or `signet COMMAND [SUB] --help` for a command\'s options;',
    '`signet --version` (-v) prints the version.',
    '',
    ADMIN_NOTE,
    '',
    USER_NOTE,
  ].join('\n');
}

/** docs/cli.md's command table (test/cli.test.ts keeps them equal). */
export function commandTable(commands: readonly Command[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| Command | What it does |',
    '|---|---|',
    ...commands.map((c) => `| \`${cell(usageLine(c))}\` | ${cell(c.summary)} |`),
  ].join('\n');
}

/** The command's flags and arguments from `args` (what follows its name), or a UsageError. */
export function parseCommand(command: Command, args: string[]): Input {
  const fail = (message: string): never => {
    throw new UsageError(message, commandHelp(command));
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(command.flags).map(([name, flag]) => [
          name,
          { type: flag.type === 'boolean' ? ('boolean' as const) : ('string' as const), ...(flag.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message);
    return fail(unknown ? `unknown option ${unknown[1]} for signet ${commandName(command)}` : (error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  for (const [name, flag] of Object.entries(command.flags)) {
    const value = values[name];
    const given = flag.multiple ? Array.isArray(value) && value.length > 0 && value.every((v) => v !== '') : typeof value === 'string' && value !== '';
    if (flag.required && !given) fail(`--${name} is required${flag.multiple ? ' (once per value)' : ''}`);
    if (flag.type === 'integer' && value !== undefined && !/^\d{1,15}$/.test(String(value))) {
      fail(`--${name} takes a whole number (${flag.value}), got "${String(value)}"`);
    }
  }
  const declared = command.args ?? [];
  const least = declared.filter((a) => !a.optional).length;
  if (parsed.positionals.length < least || parsed.positionals.length > declared.length) {
    const given = parsed.positionals.length === 0 ? 'none' : `"${parsed.positionals.join(' ')}"`;
    fail(
      declared.length === 0
        ? `"${commandName(command)}" takes no arguments, got ${given}`
        : `"${commandName(command)}" takes ${declared.map((a) => (a.optional ? `[${a.name}]` : a.name)).join(' ')}, got ${given}; ` +
            declared.map((a) => `${a.name}: ${a.description}`).join('; '),
    );
  }
  return {
    args: parsed.positionals,
    get: (name) => (typeof values[name] === 'string' ? (values[name] as string) : undefined),
    need: (name) => values[name] as string,
    on: (name) => values[name] === true,
    all: (name) => (Array.isArray(values[name]) ? (values[name] as string[]) : []),
  };
}

/** The command and what follows it, from a whole command line; help and version are the caller's. */
export function findCommand(commands: readonly Command[], argv: string[]): { command: Command; rest: string[] } {
  const [name, sub, ...rest] = argv;
  const group = commands.filter((c) => c.name === name);
  if (group.length === 0) throw new UsageError(`unknown command "${name}"`, overview(commands));
  const single = group.find((c) => c.sub === undefined);
  if (single) return { command: single, rest: argv.slice(1) };
  const command = group.find((c) => c.sub === sub);
  if (!command) {
    const expected = `expected: signet ${name} ${group.map((c) => c.sub).join('|')}`;
    throw new UsageError(sub === undefined ? expected : `unknown subcommand "${name} ${sub}"; ${expected}`, groupHelp(name!, commands));
  }
  return { command, rest };
}

/** The help page `words` ask for (`[]`, `[COMMAND]` or `[COMMAND, SUB]`); a UsageError for an unknown one. */
export function helpPage(commands: readonly Command[], words: string[]): string {
  if (words.length === 0) return overview(commands);
  const group = commands.filter((c) => c.name === words[0]);
  if (words.length === 1 && group.length > 1) return groupHelp(words[0]!, commands);
  return commandHelp(findCommand(commands, words).command);
}
