// All of Signet's configuration. Every SIGNET_* setting is declared once, in src/config/settings.ts;
// from those declarations this file reads the environment (a bad value names its variable), infers
// the Config type, reports each value and its source for `signet config` (secrets masked) and writes
// docs/configuration.md's tables (test/readme.test.ts keeps them equal). Nothing else in the tree
// reads process.env.
import { GROUPS, SETTINGS, type Setting } from './config/settings.ts';
import { kinds } from './config/values.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** A tree of declarations (SETTINGS, or a part of it). */
interface Declarations {
  readonly [key: string]: Setting | Declarations;
}

/** The values a tree of declarations reads. */
type Values<T> = { [K in keyof T]: T[K] extends Setting<infer V> ? V : Values<T[K]> };

/** The declared settings of a tree. */
type Leaf<T> = { [K in keyof T]: T[K] extends Setting ? T[K] : Leaf<T[K]> }[keyof T];
export type SettingName = Leaf<typeof SETTINGS>['env'];

const isSetting = (entry: Setting | Declarations): entry is Setting => typeof entry.env === 'string';

/** Every declared setting, depth first: the order of `signet config` and, within a group, of the docs' tables. */
function leaves(tree: Declarations): Setting[] {
  return Object.values(tree).flatMap((entry) => (isSetting(entry) ? [entry] : leaves(entry)));
}

export const ALL_SETTINGS: readonly Setting[] = leaves(SETTINGS);

const settingNamed = (name: SettingName) => ALL_SETTINGS.find((setting) => setting.env === name)!;

/** Unset, empty and blank all mean "use the default". */
const given = (raw: string | undefined): raw is string => raw !== undefined && raw.trim() !== '';

/** A default may name the effective port as `<port>`. */
const withPort = (text: string, port: number) => text.replace('<port>', String(port));

/** Every setting's value, in the tree's shape; all bad variables are named in one ConfigError. */
function readSettings(env: Env): Values<typeof SETTINGS> {
  const problems: string[] = [];
  // For the defaults that name it; a bad SIGNET_PORT is reported below.
  const portText = given(env.SIGNET_PORT) ? env.SIGNET_PORT : SETTINGS.port.default;
  const port = Number(SETTINGS.port.schema.safeParse(portText).data ?? 0);
  const read = (tree: Declarations): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(tree).map(([key, entry]) => {
        if (!isSetting(entry)) return [key, read(entry)];
        const fallback = entry.default === undefined ? undefined : withPort(entry.default, port);
        const raw = given(env[entry.env]) ? env[entry.env]! : fallback;
        if (raw === undefined) return [key, undefined];
        const result = entry.schema.safeParse(raw);
        if (!result.success) problems.push(`${entry.env} ${result.error.issues[0]!.message}`);
        return [key, result.data];
      }),
    );
  const values = read(SETTINGS);
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return values as Values<typeof SETTINGS>;
}

type SmsValues = Values<typeof SETTINGS.sms>;

/** SIGNET_SMS_PROVIDER and the settings of the provider it names; the development SMS log without one. */
function smsSettings(values: SmsValues) {
  if (values.provider === undefined) return { provider: 'development' as const };
  const need = (key: 'accountSid' | 'authToken', shape: string): string => {
    const value = values[key];
    if (value === undefined) {
      throw new ConfigError(`${SETTINGS.sms[key].env} is required with SIGNET_SMS_PROVIDER=twilio (${shape})`);
    }
    return value;
  };
  const accountSid = need('accountSid', 'AC followed by 32 hex digits');
  const authToken = need('authToken', "the account's auth token");
  const { from, messagingServiceSid, baseUrl } = values;
  if ((from === undefined) === (messagingServiceSid === undefined)) {
    throw new ConfigError(
      'set exactly one of SIGNET_TWILIO_FROM (the sending number, e.g. +14155550100) and SIGNET_TWILIO_MESSAGING_SERVICE_SID (MG…)',
    );
  }
  return {
    provider: values.provider,
    accountSid,
    authToken,
    // Exactly one of a sender (an E.164 number or an alphanumeric sender id) and a Messaging Service.
    ...(from !== undefined ? { from } : {}),
    ...(messagingServiceSid !== undefined ? { messagingServiceSid } : {}),
    baseUrl,
  };
}

type Pkcs11Values = Values<typeof SETTINGS.pkcs11>;

/** The longest token and key labels together: `pkcs11:<token>:<key>:<12 hex>` is a key-encryption key id of at most 64 characters. */
export const MAX_PKCS11_LABELS = 64 - 'pkcs11:'.length - 2 - 12;

/** The HSM's four settings, all given or none (then undefined: no HSM). */
function pkcs11Settings({ previousKeyLabel, ...values }: Pkcs11Values) {
  const entries = Object.entries(values) as Array<[keyof typeof values, string | undefined]>;
  const missing = entries.filter(([, value]) => value === undefined).map(([key]) => SETTINGS.pkcs11[key].env);
  if (missing.length === entries.length) {
    if (previousKeyLabel !== undefined) throw new ConfigError('SIGNET_PKCS11_PREVIOUS_KEY_LABEL is set without an HSM: it goes with the four SIGNET_PKCS11_* settings');
    return undefined;
  }
  if (missing.length > 0) {
    const given = entries.filter(([, value]) => value !== undefined).map(([key]) => SETTINGS.pkcs11[key].env);
    throw new ConfigError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required with ${given.join(', ')}: an HSM needs all four SIGNET_PKCS11_* settings`);
  }
  const { module, tokenLabel, pin, keyLabel } = values as Required<{ [K in keyof typeof values]: string }>;
  if (tokenLabel.length + keyLabel.length > MAX_PKCS11_LABELS) {
    throw new ConfigError(`SIGNET_PKCS11_TOKEN_LABEL and SIGNET_PKCS11_KEY_LABEL have at most ${MAX_PKCS11_LABELS} characters together (the key-encryption key's id names both)`);
  }
  if (previousKeyLabel === undefined) return { module, tokenLabel, pin, keyLabel };
  if (tokenLabel.length + previousKeyLabel.length > MAX_PKCS11_LABELS) {
    throw new ConfigError(`SIGNET_PKCS11_TOKEN_LABEL and SIGNET_PKCS11_PREVIOUS_KEY_LABEL have at most ${MAX_PKCS11_LABELS} characters together (the key-encryption key's id names both)`);
  }
  if (previousKeyLabel === keyLabel) throw new ConfigError('SIGNET_PKCS11_PREVIOUS_KEY_LABEL names the key of SIGNET_PKCS11_KEY_LABEL: give the label of the key it replaces, or unset it');
  return { module, tokenLabel, pin, keyLabel, previousKeyLabel };
}

export function loadConfig(env: Env = process.env) {
  const values = readSettings(env);
  return { ...values, sms: smsSettings(values.sms), pkcs11: pkcs11Settings(values.pkcs11) };
}

/** The configuration of a process: SETTINGS' values in their shape, the SMS settings checked together. */
export type Config = ReturnType<typeof loadConfig>;
/** The HSM that holds the key-encryption key (SIGNET_PKCS11_*), when one is configured. */
export type Pkcs11Settings = NonNullable<Config['pkcs11']>;
/** Where OTP SMS go: a provider with its settings, or the development SMS log. */
export type SmsSettings = Config['sms'];
/** At most `count` events per `windowSeconds` (the SIGNET_RATE_LIMIT_* settings, SIGNET_AUTH_FAILURE_LIMIT). */
export type RateLimitSetting = Config['authFailureLimit'];

/** Where a setting's value came from. */
export type SettingSource = 'environment' | 'default';

export interface ReportedSetting {
  name: SettingName;
  /** As given (secrets masked), or the default as docs/configuration.md states it. */
  value: string;
  source: SettingSource;
}

const MASK = '********';

/** A URL with its password, and the values of query parameters that carry credentials, masked. */
function withoutPassword(value: string): string {
  const parsed = new URL(value);
  if (parsed.password) parsed.password = MASK;
  for (const key of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, MASK);
  }
  return parsed.href;
}

/** What `signet config` shows of a value: a secret never, a URL without its password. */
export function displayedValue(name: SettingName, raw: string): string {
  const secret = settingNamed(name).secret;
  if (secret === 'value') return MASK;
  return secret === 'url-password' ? withoutPassword(raw) : raw;
}

/** Whether the environment gives the setting (unset, empty or blank means its default). */
export function settingSource(name: SettingName, env: Env = process.env): SettingSource {
  return given(env[name]) ? 'environment' : 'default';
}

/** The default as the docs and `signet config` state it. */
const defaultText = (setting: Setting) => setting.defaultText ?? setting.default ?? 'unset';

/**
 * Every setting with its effective value and where it came from, for `signet config`: a ConfigError
 * first when the environment holds a bad value (as `signet serve` would stop on).
 */
export function configurationReport(env: Env = process.env): ReportedSetting[] {
  const config = loadConfig(env);
  return ALL_SETTINGS.map((setting) => {
    const name = setting.env as SettingName;
    return settingSource(name, env) === 'environment'
      ? { name, value: displayedValue(name, env[name]!), source: 'environment' }
      : { name, value: withPort(defaultText(setting), config.port), source: 'default' };
  });
}

/** docs/configuration.md's settings: one table per group, rendered from SETTINGS (test/readme.test.ts keeps them equal). */
export function configurationTable(): string {
  const cell = (value: string) => value.replace(/\|/g, '\\|');
  // Words describe a default; values are shown as code.
  const shown = (setting: Setting) => (setting.defaultText ?? setting.default === undefined ? defaultText(setting) : `\`${cell(setting.default!)}\``);
  const kindOf = (setting: Setting) => {
    const kind = kinds.get(setting.schema)?.kind;
    if (kind === undefined) throw new Error(`${setting.env}: its schema does not say its kind (values.ts, kind())`);
    return kind;
  };
  const row = (setting: Setting) => `| \`${setting.env}\` | ${cell(kindOf(setting))} | ${shown(setting)} | ${cell(setting.description)} |`;
  return (Object.entries(GROUPS) as Array<[Setting['group'], string]>)
    .map(([group, title]) =>
      [`### ${title}`, '', '| Variable | Type | Default | Meaning |', '|---|---|---|---|', ...ALL_SETTINGS.filter((s) => s.group === group).map(row)].join('\n'),
    )
    .join('\n\n');
}

/** The prefix of the tests' own variables (the PostgreSQL URL of the tests, their log switch), never settings. */
const TEST_PREFIX = 'SIGNET_TEST_';

/** A SIGNET_* variable that nothing reads (a typo, or a setting of another version), and the known name nearest to it. */
export interface UnknownVariable {
  name: string;
  /** A known name a few edits away ("did you mean"). */
  suggestion?: string;
}

/** The number of single-character insertions, deletions and substitutions between a and b. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Every SIGNET_* variable of the environment that is neither a setting, nor one of `readElsewhere`
 * (what the CLI and the examples read besides the settings: serverLocation.ts), nor a test's; in
 * name order.
 */
export function unknownVariables(readElsewhere: readonly string[], env: Env = process.env): UnknownVariable[] {
  const known = [...ALL_SETTINGS.map((setting) => setting.env), ...readElsewhere];
  return Object.keys(env)
    .filter((name) => name.startsWith('SIGNET_') && !known.includes(name) && !name.startsWith(TEST_PREFIX))
    .sort()
    .map((name) => {
      const [nearest] = known.map((candidate) => ({ candidate, distance: editDistance(name, candidate) })).sort((a, b) => a.distance - b.distance);
      // A few edits, fewer for a short name (a three-letter one is no near miss of SIGNET_HOST).
      const near = Math.max(1, Math.floor((name.length - 'SIGNET_'.length) / 4));
      return nearest && nearest.distance <= near ? { name, suggestion: nearest.candidate } : { name };
    });
}

/** What `signet serve` and `signet config` say of an unknown variable. */
export function unknownVariableMessage({ name, suggestion }: UnknownVariable): string {
  return `${name} is not a Signet setting and is ignored${suggestion ? `; did you mean ${suggestion}?` : ' (docs/configuration.md lists them)'}`;
}
