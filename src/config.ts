import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { EdgeopsError } from './errors.js';
import { parseDuration } from './time/duration.js';

/** Which adapter serves users, chosen from the credentials present (PRODUCT §1). */
export type RunMode = 'http' | 'socket' | 'console';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());

const optionalUrl = (protocols: readonly string[]) =>
  z.preprocess(
    emptyToUndefined,
    z
      .url({ error: 'must be an absolute URL' })
      .refine((value) => URL.canParse(value) && protocols.includes(new URL(value).protocol), {
        error: `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
      })
      .optional(),
  );

const libsqlUrl = z.string().refine(
  (value) => {
    if (value === ':memory:' || value.startsWith('file:')) return true;
    try {
      return ['libsql:', 'http:', 'https:', 'ws:', 'wss:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  },
  { error: 'must be file:PATH, :memory:, libsql://, http:// or https://' },
);

const durationMs = (fallback: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default(fallback)
      .transform((value, ctx) => {
        const parsed = parseDuration(value);
        if (parsed.ok) return parsed.ms;
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }),
  );

const BYTE_UNITS: Record<string, number> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** A size such as `100MB`, `512KB`, `1GB` or a number of bytes; KB, MB and GB are powers of 1024. */
const byteSize = (fallback: string, max: number) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default(fallback)
      .transform((value, ctx) => {
        const match = /^(\d{1,12})\s*(B|KB|MB|GB)?$/i.exec(value.trim());
        const bytes = match ? Number(match[1]) * (BYTE_UNITS[(match[2] ?? '').toUpperCase()] ?? 1) : 0;
        if (!match) ctx.addIssue({ code: 'custom', message: 'must be a size such as 100MB, 512KB or 1GB' });
        else if (bytes < 1024 || bytes > max)
          ctx.addIssue({ code: 'custom', message: `must be between 1KB and ${max / 1024 ** 3}GB` });
        return bytes;
      }),
  );

const rawEnvSchema = z.object({
  SLACK_BOT_TOKEN: z.preprocess(
    emptyToUndefined,
    z.string().startsWith('xoxb-', { error: 'must start with xoxb-' }).optional(),
  ),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: z.preprocess(
    emptyToUndefined,
    z.string().startsWith('xapp-', { error: 'must start with xapp-' }).optional(),
  ),
  SLACK_API_URL: z.preprocess(
    emptyToUndefined,
    z
      .url({ error: 'must be an absolute URL' })
      .default('https://slack.com/api/')
      .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
  ),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  METRICS_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(9090)),
  PLATFORM_API_URL: optionalUrl(['http:', 'https:']),
  PLATFORM_API_KEY: optionalString,
  PLATFORM_LOGGING_URL: optionalUrl(['http:', 'https:']),
  PLATFORM_DATABASE_API_URL: optionalUrl(['http:', 'https:']),
  SERVICE_DATABASE_URL: z.preprocess(emptyToUndefined, libsqlUrl.optional()),
  SERVICE_DATABASE_AUTH_TOKEN: optionalString,
  STATE_DATABASE_URL: z.preprocess(emptyToUndefined, libsqlUrl.default('file:data/edgeops.db')),
  STATE_DATABASE_AUTH_TOKEN: optionalString,
  EDGEOPS_POLICY: optionalString,
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(['debug', 'info', 'warn', 'error']).default('info')),
  EDGEOPS_MAX_JOBS_PER_USER: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(50).default(2),
  ),
  EDGEOPS_MAX_JOBS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(200).default(4)),
  EDGEOPS_EXECUTION_TIMEOUT: durationMs('2m'),
  EDGEOPS_DB_QUERY_TIMEOUT: durationMs('10s'),
  EDGEOPS_DB_QUERY_MAX_ROWS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number of rows' })
      .int({ error: 'must be a whole number of rows' })
      .min(1, { error: 'must be at least 1' })
      .max(10_000_000, { error: 'must be at most 10000000' })
      .default(100_000),
  ),
  EDGEOPS_DB_QUERY_MAX_BYTES: byteSize('100MB', 1024 ** 3),
  EDGEOPS_WATCH_MIN_EVERY: durationMs('1m'),
  EDGEOPS_MAX_WATCHES_PER_USER: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100).default(3),
  ),
  EDGEOPS_MAX_WATCHES: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1000).default(20)),
  EDGEOPS_WATCH_CALLS_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(1000).default(30),
  ),
  EDGEOPS_LOG_CACHE: byteSize('1GB', 1024 ** 4),
  EDGEOPS_LOG_CACHE_DIR: optionalString,
  EDGEOPS_MAX_DIGESTS_PER_USER: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100).default(5),
  ),
  EDGEOPS_MAX_DIGESTS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1000).default(50)),
});

/** Every environment variable the configuration reads (for .env.example and the docs). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(rawEnvSchema.shape);

export interface Config {
  mode: RunMode;
  slack: {
    botToken?: string;
    signingSecret?: string;
    appToken?: string;
    apiUrl: string;
  };
  /** The public port: Slack's events in HTTP mode, and /healthz. */
  port: number;
  /** The port of /healthz, /readyz and /metrics, in every mode (PRODUCT §2). */
  metricsPort: number;
  /** Unset in console mode without PLATFORM_API_URL: the caller starts the built-in sandbox. */
  platform?: {
    apiUrl: string;
    apiKey: string;
    loggingUrl: string;
    databaseApiUrl: string;
  };
  /** `id` is set when the URL's first host label is not the database id (the sandbox's IP URL). */
  serviceDatabase?: { url: string; authToken?: string; id?: string };
  /** `fromEnvironment`: STATE_DATABASE_URL was set (the console then keeps it even against the sandbox). */
  stateDatabase: { url: string; authToken?: string; fromEnvironment: boolean };
  /** Path of the policy file, or undefined for the built-in policy. */
  policyPath?: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** An approved change still running after this long is taken as interrupted by a crash. */
  executionTimeoutMs: number;
  /** Long jobs (log days, exports) running at once: per person, and in this process. */
  jobs: { perUser: number; perProcess: number };
  /** Bounds of `/edge db`: a statement's deadline, and the rows and bytes of values a query keeps. */
  databaseQuery: { timeoutMs: number; maxRows: number; maxBytes: number };
  /**
   * Watches (`/edge watch logs`): the shortest poll interval, the running watches allowed per
   * person and in the workspace, and the platform calls per minute all of them share.
   */
  watches: { minEveryMs: number; perUser: number; perWorkspace: number; callsPerMinute: number };
  /** Origin-log day files kept on disk for repeated questions: at most `maxBytes`, in `dir`. */
  logCache: { maxBytes: number; dir: string };
  /** Scheduled digests (`/edge digest`): the running ones allowed per person and in the workspace. */
  digests: { perUser: number; perWorkspace: number };
}

/** A start-up configuration problem: one line naming the variable, never its value. */
export class ConfigError extends EdgeopsError {
  readonly kind = 'config';
  readonly outcome = 'error';
  readonly unexpected = false;

  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }

  get userMessage(): string {
    return this.message;
  }
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Parses the environment once. Throws ConfigError naming the first bad variable; the
 * message never contains a value, since several of these variables are secrets.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  fileExists: (path: string) => boolean = existsSync,
): Config {
  const parsed = rawEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const e = parsed.data;

  let mode: RunMode;
  if (e.SLACK_APP_TOKEN) {
    if (!e.SLACK_BOT_TOKEN) throw new ConfigError('SLACK_BOT_TOKEN', 'is required with SLACK_APP_TOKEN');
    mode = 'socket';
  } else if (e.SLACK_BOT_TOKEN || e.SLACK_SIGNING_SECRET) {
    if (!e.SLACK_BOT_TOKEN) throw new ConfigError('SLACK_BOT_TOKEN', 'is required with SLACK_SIGNING_SECRET');
    if (!e.SLACK_SIGNING_SECRET)
      throw new ConfigError('SLACK_SIGNING_SECRET', 'is required in HTTP mode (or set SLACK_APP_TOKEN)');
    mode = 'http';
  } else {
    mode = 'console';
  }

  let platform: Config['platform'];
  if (e.PLATFORM_API_URL) {
    if (!e.PLATFORM_API_KEY) throw new ConfigError('PLATFORM_API_KEY', 'is required with PLATFORM_API_URL');
    const apiUrl = withoutTrailingSlash(e.PLATFORM_API_URL);
    if (!e.PLATFORM_LOGGING_URL && mode !== 'console')
      throw new ConfigError('PLATFORM_LOGGING_URL', 'is required with PLATFORM_API_URL');
    platform = {
      apiUrl,
      apiKey: e.PLATFORM_API_KEY,
      loggingUrl: withoutTrailingSlash(e.PLATFORM_LOGGING_URL ?? `${apiUrl}/logging`),
      databaseApiUrl: withoutTrailingSlash(e.PLATFORM_DATABASE_API_URL ?? `${apiUrl}/database`),
    };
  } else if (mode !== 'console') {
    throw new ConfigError('PLATFORM_API_URL', 'is required when Slack credentials are set');
  }

  // 0 picks a free port for each; the console listens on no PORT.
  if (mode !== 'console' && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT)
    throw new ConfigError('METRICS_PORT', 'must differ from PORT: metrics are kept off the public port');

  if (e.SERVICE_DATABASE_AUTH_TOKEN && !e.SERVICE_DATABASE_URL)
    throw new ConfigError('SERVICE_DATABASE_URL', 'is required with SERVICE_DATABASE_AUTH_TOKEN');

  const policyPath =
    e.EDGEOPS_POLICY ?? (fileExists('edgeops.policy.yml') ? 'edgeops.policy.yml' : undefined);
  if (e.EDGEOPS_POLICY && !fileExists(e.EDGEOPS_POLICY))
    throw new ConfigError('EDGEOPS_POLICY', 'names a file that does not exist');

  return {
    mode,
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
    },
    port: e.PORT,
    metricsPort: e.METRICS_PORT,
    platform,
    serviceDatabase: e.SERVICE_DATABASE_URL
      ? { url: e.SERVICE_DATABASE_URL, authToken: e.SERVICE_DATABASE_AUTH_TOKEN }
      : undefined,
    stateDatabase: {
      url: e.STATE_DATABASE_URL,
      authToken: e.STATE_DATABASE_AUTH_TOKEN,
      fromEnvironment: emptyToUndefined(env.STATE_DATABASE_URL) !== undefined,
    },
    policyPath,
    logLevel: e.LOG_LEVEL,
    executionTimeoutMs: e.EDGEOPS_EXECUTION_TIMEOUT,
    jobs: { perUser: e.EDGEOPS_MAX_JOBS_PER_USER, perProcess: e.EDGEOPS_MAX_JOBS },
    databaseQuery: {
      timeoutMs: e.EDGEOPS_DB_QUERY_TIMEOUT,
      maxRows: e.EDGEOPS_DB_QUERY_MAX_ROWS,
      maxBytes: e.EDGEOPS_DB_QUERY_MAX_BYTES,
    },
    watches: {
      minEveryMs: e.EDGEOPS_WATCH_MIN_EVERY,
      perUser: e.EDGEOPS_MAX_WATCHES_PER_USER,
      perWorkspace: e.EDGEOPS_MAX_WATCHES,
      callsPerMinute: e.EDGEOPS_WATCH_CALLS_PER_MINUTE,
    },
    logCache: {
      maxBytes: e.EDGEOPS_LOG_CACHE,
      dir: e.EDGEOPS_LOG_CACHE_DIR ?? join(tmpdir(), 'edgeops-log-cache'),
    },
    digests: { perUser: e.EDGEOPS_MAX_DIGESTS_PER_USER, perWorkspace: e.EDGEOPS_MAX_DIGESTS },
  };
}

/** Every configured secret value, so loggers and tests can redact or look for them. */
export function configSecrets(config: Config): string[] {
  return [
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.platform?.apiKey,
    config.serviceDatabase?.authToken,
    config.stateDatabase.authToken,
    ...urlCredentials(config.serviceDatabase?.url),
    ...urlCredentials(config.stateDatabase.url),
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}

/** A token or password written into a database URL (`?authToken=…`, `user:pass@`), as it is there and decoded. */
function urlCredentials(url: string | undefined): string[] {
  if (!url || url.startsWith('file:')) return [];
  const found: string[] = [];
  // As written, in case the URL does not parse or decode.
  const raw = /[?&]authToken=([^&#]*)/.exec(url)?.[1];
  if (raw) found.push(raw);
  const rawPassword = /^[a-z+]+:\/\/[^/@:]*:([^/@]*)@/i.exec(url)?.[1];
  if (rawPassword) found.push(rawPassword);
  try {
    const parsed = new URL(url);
    found.push(parsed.searchParams.get('authToken') ?? '', parsed.password);
    found.push(decodeURIComponent(parsed.password));
  } catch {
    // A URL that does not parse or decode keeps the forms as written, found above.
  }
  return found.filter((value) => value.length > 0);
}
