/**
 * Configuration = defaults, then CONFIG_FILE (YAML or JSON by extension), then
 * environment variables (env wins). Every problem is collected and thrown at
 * once as a ConfigError; empty environment variables count as unset.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { defaultConfig, missBudgetFor, SHUTDOWN_MARGIN_MS } from './defaults.js';
import { FIELD_BY_KEY, FIELDS, SECTIONS, setPath } from './fields.js';
import type { Config } from './types.js';
import { checkApiKeys } from './api-keys.js';
import { checkField, checkPolicies, crossCheck, shown } from './validate.js';
import { fileKeyLookalike, lookalikeErrors } from './lookalike.js';
import { checkMaxAgeByEndpoint } from './max-age.js';
import { checkPages } from '../page-table/config.js';
import { checkCreditCosts, unknownCostPages } from './credit-costs.js';

export class ConfigError extends Error {
  readonly errors: readonly string[];

  constructor(errors: readonly string[]) {
    super(errors.join('\n'));
    this.name = 'ConfigError';
    this.errors = errors;
  }
}

type Env = Record<string, string | undefined>;

/** Every environment variable start-up reads. */
const SETTING_NAMES: readonly string[] = [...FIELDS.map((f) => f.env), 'CONFIG_FILE'];
/** Keys a file may hold besides the settings' own (read by their own checks). */
const FILE_ONLY_KEYS: readonly string[] = [
  'apiKeys',
  'policies',
  'creditCosts',
  'pages',
  'invalidation.maxAgeByEndpoint',
];
/** Every key a CONFIG_FILE may hold, and the key of each variable, for the suggestion of an unknown key. */
const FILE_KEYS: readonly string[] = [...FIELDS.map((f) => f.key), ...SECTIONS, ...FILE_ONLY_KEYS];
const KEY_BY_ENV: ReadonlyMap<string, string> = new Map(FIELDS.map((f) => [f.env, f.key]));

function unknownKeyError(label: string, key: string): string {
  const like = fileKeyLookalike(key, FILE_KEYS, KEY_BY_ENV);
  const base = `${label}: expected a known setting (see --help), got an unknown key`;
  if (like === null) return base;
  return KEY_BY_ENV.get(key.toUpperCase()) === like
    ? `${base}: a variable's name; in a file the key is ${like} (rename it to ${like})`
    : `${base} that resembles ${like} (rename it to ${like})`;
}

/** `--config <file>` / `--config=<file>` in argv, else CONFIG_FILE. */
function configFilePath(env: Env, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config') return argv[i + 1];
    if (a.startsWith('--config=')) return a.slice('--config='.length);
  }
  const f = env['CONFIG_FILE'];
  return f === undefined || f.trim() === '' ? undefined : f.trim();
}

function readConfigFile(path: string, errors: string[]): Record<string, unknown> | null {
  const ext = extname(path).toLowerCase();
  if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml') {
    errors.push(`CONFIG_FILE: expected a .yaml, .yml or .json file, got ${shown(path)}`);
    return null;
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    errors.push(`CONFIG_FILE: expected a readable file, got ${shown(path)} (${code})`);
    return null;
  }
  let doc: unknown;
  try {
    doc = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const msg = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    errors.push(
      `CONFIG_FILE: expected valid ${ext === '.json' ? 'JSON' : 'YAML'} in ${shown(path)}, got a syntax error: ${msg}`,
    );
    return null;
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    errors.push(`CONFIG_FILE: expected a map of settings in ${shown(path)}, got ${shown(doc)}`);
    return null;
  }
  return doc as Record<string, unknown>;
}

function applyFile(
  config: Config,
  doc: Record<string, unknown>,
  file: string,
  labels: Map<string, string>,
  errors: string[],
): void {
  const label = (key: string): string => `${key} (in ${file})`;
  const set = (key: string, raw: unknown): void => {
    if (key === 'invalidation.maxAgeByEndpoint') {
      const r = checkMaxAgeByEndpoint(raw, key, ` (in ${file})`);
      config.invalidation.maxAgeByEndpoint = r.value;
      errors.push(...r.errors);
      return;
    }
    const field = FIELD_BY_KEY.get(key);
    if (field === undefined) {
      errors.push(unknownKeyError(label(key), key));
      return;
    }
    const r = checkField(field, raw, label(key));
    if (!r.ok) errors.push(r.error);
    else {
      setPath(config, key, r.value);
      labels.set(key, label(key));
    }
  };
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'apiKeys') {
      const r = checkApiKeys(value, label('apiKeys'));
      config.apiKeys = r.apiKeys;
      errors.push(...r.errors);
    } else if (key === 'policies') {
      const r = checkPolicies(value, label('policies'));
      config.policies = r.policies;
      errors.push(...r.errors);
    } else if (key === 'creditCosts') {
      const r = checkCreditCosts(value, label('creditCosts'));
      config.creditCosts = r.costs;
      errors.push(...r.errors);
    } else if (key === 'pages') {
      const r = checkPages(value, label('pages'));
      config.pages = r.pages;
      errors.push(...r.errors);
    } else if (SECTIONS.has(key)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        errors.push(`${label(key)}: expected a map of settings, got ${shown(value)}`);
        continue;
      }
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) set(`${key}.${sub}`, v);
    } else {
      set(key, value);
    }
  }
}

export function loadConfig(env: Env = process.env, argv: readonly string[] = []): Config {
  const config = defaultConfig();
  const errors: string[] = [];
  /** Where each set key came from, for messages: env var or file key. */
  const labels = new Map<string, string>();

  const file = configFilePath(env, argv);
  if (file !== undefined) {
    const doc = readConfigFile(file, errors);
    if (doc !== null) applyFile(config, doc, file, labels, errors);
    errors.push(...unknownCostPages(config, `creditCosts (in ${file})`));
  }

  for (const field of FIELDS) {
    const raw = env[field.env];
    if (raw === undefined || raw.trim() === '') continue;
    const r = checkField(field, raw, field.env);
    if (!r.ok) errors.push(r.error);
    else {
      setPath(config, field.key, r.value);
      labels.set(field.key, field.env);
    }
  }

  errors.push(...lookalikeErrors(env, SETTING_NAMES));

  if (!labels.has('publicBaseUrl')) config.publicBaseUrl = `http://localhost:${config.port}`;
  if (!labels.has('shutdownTimeoutMs')) config.shutdownTimeoutMs = config.limits.requestTimeoutMs + SHUTDOWN_MARGIN_MS;
  if (!labels.has('missBudget')) config.missBudget = missBudgetFor(config.rateLimit.max);

  // Fields that failed keep their defaults, so the cross checks still make sense.
  const envName = (key: string): string => FIELD_BY_KEY.get(key)?.env ?? key;
  errors.push(...crossCheck(config, (key) => labels.get(key) ?? envName(key)));
  if (errors.length > 0) throw new ConfigError(errors);
  return config;
}
