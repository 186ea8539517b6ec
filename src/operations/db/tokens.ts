import { z } from 'zod';
import { DatabaseIdSchema } from '../../platform/schemas.js';
import { fieldText } from '../../reply/form.js';
import { fingerprint } from '../../secrets/registry.js';
import { addMilliseconds } from '../../time/date-fns.js';
import { parseDuration } from '../../time/duration.js';
import { failedExecution, type GatedOperation } from '../approvals/gate.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith, type RunContext, type SubmissionOutcome } from '../engine/types.js';
import { databaseToChange, namedId } from '../shared/change-targets.js';
import { formatIsoUtc } from '../shared/time-args.js';

/** The database's name on the platform when the change was asked for; absent on requests from before. */
const DatabaseName = z.string().nullable().optional();
const CreateParams = z.object({
  database: z.string(),
  databaseName: DatabaseName,
  readOnly: z.boolean(),
  expiresAt: z.string().nullable(),
});
const InvalidateParams = z.object({
  database: z.string(),
  databaseName: DatabaseName,
  regenerate: z.boolean(),
  ownDatabase: z.boolean(),
});

/** `db_01… · shop`: the database id and its name on the platform, for the card. */
const databaseField = (params: Record<string, unknown>) => ({
  label: 'Database',
  value: namedId(String(params.database), DatabaseName.safeParse(params.databaseName).data),
});

/** How long the check before the access form may take: Slack's trigger lasts 3 seconds. */
const FORM_CHECK_MS = 1_500;

/** The database id: --db, else the first host label of SERVICE_DATABASE_URL (PRODUCT §4). */
function databaseId(ctx: RunContext, flag: string | undefined): string {
  const id = flag ?? ctx.services.database?.databaseId;
  if (!id)
    throw new UserFacingError(
      'Say which database: add --db ID, or set SERVICE_DATABASE_URL so its first host label names it.',
    );
  const parsed = DatabaseIdSchema.safeParse(id);
  if (!parsed.success)
    throw new UserFacingError(`"${id.slice(0, 40)}" is not a database id (letters, digits, _ and -).`);
  return parsed.data;
}

export const tokenCreateGate: GatedOperation = {
  id: 'db.tokens.create',
  describe: (params) =>
    `Create a ${params.readOnly ? 'read-only' : 'full-access'} token for database ${String(params.database)}`,
  fields: (params) => [
    databaseField(params),
    { label: 'Access', value: params.readOnly ? 'read only' : 'full access' },
    {
      label: 'Token expires',
      value: params.expiresAt
        ? formatIsoUtc(String(params.expiresAt))
        : 'never (chosen explicitly; until tokens are invalidated)',
    },
  ],
  async execute(params, ctx) {
    const { database, readOnly, expiresAt } = CreateParams.parse(params);
    try {
      const generated = await ctx.services.platform.generateDatabaseToken(database, {
        authorization: readOnly ? 'read-only' : 'full-access',
        expires_at: expiresAt,
      });
      ctx.services.secrets.add(generated.token);
      return {
        ok: true,
        detail: `Token ${fingerprint(generated.token)} created${generated.expires_at ? `, expiring ${formatIsoUtc(generated.expires_at)}` : ''}.`,
        secrets: [
          {
            label: `${readOnly ? 'Read-only' : 'Full-access'} token for ${database}`,
            value: generated.token,
            note: generated.expires_at ? `expires ${formatIsoUtc(generated.expires_at)}` : 'no expiry',
          },
        ],
      };
    } catch (error) {
      return failedExecution(ctx, error);
    }
  },
};

/** What a regenerated token of the bot's own database does not reach by itself. */
const OTHER_REPLICAS =
  'every other replica keeps the old token, and its /edge db answers fail, until it is restarted with SERVICE_DATABASE_AUTH_TOKEN set to the new token (sent to the requester by DM). Set it on every replica before the next restart.';

/** Beside the new token in the requester's DM, when it replaces the bot's own. */
const OWN_TOKEN_NOTE =
  'set it as SERVICE_DATABASE_AUTH_TOKEN on every replica and restart the others: only the replica that ran the change uses it already';

export const tokenInvalidateGate: GatedOperation = {
  id: 'db.tokens.invalidate',
  describe: (params) =>
    `Invalidate every token of database ${String(params.database)}${params.regenerate ? ' and issue a new full-access one' : ''}`,
  fields: (params) => [
    databaseField(params),
    { label: 'Replacement token', value: params.regenerate ? 'yes, to the requester by DM' : 'no' },
  ],
  warning: (params) =>
    params.ownDatabase
      ? params.regenerate
        ? `The bot’s own SERVICE_DATABASE_AUTH_TOKEN stops working. Only the replica that runs this change switches its queries to the new token; ${OTHER_REPLICAS}`
        : 'The bot’s own SERVICE_DATABASE_AUTH_TOKEN will stop working: /edge db query and db exec fail on every replica until each is restarted with SERVICE_DATABASE_AUTH_TOKEN set to a new token. Add --regenerate to have one issued.'
      : undefined,
  async execute(params, ctx) {
    const { database, regenerate, ownDatabase } = InvalidateParams.parse(params);
    try {
      await ctx.services.platform.revokeDatabaseTokens(database);
    } catch (error) {
      return failedExecution(ctx, error);
    }
    if (!regenerate)
      return {
        ok: true,
        detail: `Every token of ${database} is invalid now.${ownDatabase ? ' The bot’s own token too: /edge db fails on every replica until each is restarted with a new SERVICE_DATABASE_AUTH_TOKEN.' : ''}`,
      };
    try {
      const generated = await ctx.services.platform.generateDatabaseToken(database, {
        authorization: 'full-access',
      });
      ctx.services.secrets.add(generated.token);
      if (ownDatabase) ctx.services.database?.useToken(generated.token);
      return {
        ok: true,
        detail: `Every token of ${database} is invalid now; the replacement is ${fingerprint(generated.token)}.${ownDatabase ? ` The replica that ran this change uses it for its own queries until restarted; ${OTHER_REPLICAS}` : ''}`,
        secrets: [
          {
            label: `New full-access token for ${database}`,
            value: generated.token,
            ...(ownDatabase ? { note: OWN_TOKEN_NOTE } : {}),
          },
        ],
      };
    } catch (error) {
      const failed = failedExecution(ctx, error);
      return {
        ok: false,
        detail: `Tokens were invalidated, but a replacement could not be created: ${failed.detail}`,
      };
    }
  },
};

/** How long a new token lives unless the requester says otherwise; "never" must be said. */
const DEFAULT_TOKEN_LIFETIME = '30d';

const CreateArgs = z.object({
  db: z.string().optional(),
  /** Undefined: neither --read-only nor --full-access was given, so a form asks. */
  readOnly: z.boolean().optional(),
  /** A duration, or null for a token that never expires. */
  expires: z.string().nullable(),
});
type CreateArgs = z.infer<typeof CreateArgs>;

/** `--expires`: a duration, or `never`; left out, 30 days. */
function readExpiry(
  value: string | undefined,
): { ok: true; expires: string | null } | { ok: false; error: string } {
  const given = value?.trim() ?? DEFAULT_TOKEN_LIFETIME;
  if (given.toLowerCase() === 'never') return { ok: true, expires: null };
  const duration = parseDuration(given);
  return duration.ok
    ? { ok: true, expires: given }
    : { ok: false, error: `${duration.error}, or never for a token that does not expire` };
}

async function requestToken(ctx: RunContext, database: string, readOnly: boolean, expires: string | null) {
  const duration = expires === null ? undefined : parseDuration(expires);
  // To the minute, as the card writes it: what the approver reads is the instant sent.
  const expiresAt =
    duration?.ok === true
      ? new Date(
          Math.floor(addMilliseconds(new Date(ctx.services.now()), duration.ms).getTime() / 60_000) * 60_000,
        ).toISOString()
      : null;
  const databaseName = await databaseToChange(ctx, database);
  return ctx.services.approvals.submit(ctx, {
    operation: 'db.tokens.create',
    target: database,
    params: { database, databaseName, readOnly, expiresAt },
    reason: '',
  });
}

/**
 * `/edge db tokens create [--read-only | --full-access] [--expires 30d | never] [--db ID]`: after
 * approval, a new token by DM. Without an access flag a form asks, read-only chosen; a token
 * lives 30 days unless `never` is said.
 */
export const dbTokensCreate = defineOperation({
  id: 'db.tokens.create',
  words: ['db', 'tokens', 'create'],
  usage: '/edge db tokens create [--read-only | --full-access] [--expires 30d | never] [--db ID]',
  summary: 'create a database access token (needs approval); it comes to you by DM, once',
  example: '/edge db tokens create --read-only --expires 30d',
  flags: {
    'read-only': { kind: 'boolean' },
    'full-access': { kind: 'boolean' },
    expires: { kind: 'string' },
    db: { kind: 'string' },
  },
  changes: { command: true, interactions: ['access'] },
  parse(positionals, flags) {
    if (positionals.length > 0) return { ok: false, error: `unexpected argument "${positionals[0]}"` };
    if (flags['read-only'] && flags['full-access'])
      return { ok: false, error: 'say one of --read-only or --full-access, not both' };
    const expiry = readExpiry(flags.expires);
    if (!expiry.ok) return { ok: false, error: `--expires: ${expiry.error}` };
    const readOnly = flags['read-only'] ? true : flags['full-access'] ? false : undefined;
    return parseWith(CreateArgs, { db: flags.db, readOnly, expires: expiry.expires });
  },
  target: (args) => args.db,
  async run(ctx, args: CreateArgs) {
    const database = databaseId(ctx, args.db);
    if (args.readOnly !== undefined) return requestToken(ctx, database, args.readOnly, args.expires);
    try {
      // An unknown database is refused before the form; anything else is checked again as it is sent.
      await databaseToChange(ctx, database, { signal: AbortSignal.timeout(FORM_CHECK_MS) });
    } catch (error) {
      if (error instanceof UserFacingError) throw error;
    }
    await ctx.surface.openModal({
      callbackId: 'db.tokens.create:access',
      title: 'New database token',
      submit: 'Ask for approval',
      privateMetadata: database,
      intro: `Database *${database}*. The token comes to you by DM, once, after approval.`,
      fields: [
        {
          id: 'access',
          label: 'Access',
          kind: 'select',
          options: [
            { value: 'read-only', label: 'Read only' },
            { value: 'full-access', label: 'Full access (can change data)' },
          ],
          initial: 'read-only',
        },
        {
          id: 'expires',
          label: 'Expires after',
          kind: 'text',
          initial: args.expires ?? 'never',
          hint: 'A duration such as 7d or 30d, or never for a token that does not expire.',
        },
      ],
    });
    return undefined;
  },
  submissions: {
    async access(ctx, values, privateMetadata): Promise<SubmissionOutcome> {
      const database = DatabaseIdSchema.safeParse(privateMetadata);
      if (!database.success)
        return { errors: { access: 'The form lost its database; run the command again.' } };
      const access = fieldText(values, 'access');
      if (access !== 'read-only' && access !== 'full-access')
        return { errors: { access: 'Choose the access.' } };
      const expiry = readExpiry(fieldText(values, 'expires') || undefined);
      if (!expiry.ok) return { errors: { expires: expiry.error } };
      const readOnly = access === 'read-only';
      return {
        target: database.data,
        params: { readOnly, expires: expiry.expires ?? 'never' },
        run: () => requestToken(ctx, database.data, readOnly, expiry.expires),
      };
    },
  },
});

/** `/edge db tokens invalidate [--regenerate] [--db ID]`: after approval, every token stops working. */
export const dbTokensInvalidate = defineOperation({
  id: 'db.tokens.invalidate',
  words: ['db', 'tokens', 'invalidate'],
  usage: '/edge db tokens invalidate [--regenerate] [--db ID]',
  summary: 'invalidate every token of a database (needs approval); --regenerate issues a replacement',
  example: '/edge db tokens invalidate --regenerate',
  flags: { regenerate: { kind: 'boolean' }, db: { kind: 'string' } },
  changes: { command: true },
  parse: (positionals, flags) =>
    positionals.length > 0
      ? { ok: false, error: `unexpected argument "${positionals[0]}"` }
      : parseWith(z.object({ db: z.string().optional(), regenerate: z.boolean() }), {
          db: flags.db,
          regenerate: flags.regenerate,
        }),
  target: (args) => args.db,
  async run(ctx, args) {
    const database = databaseId(ctx, args.db);
    const databaseName = await databaseToChange(ctx, database);
    return ctx.services.approvals.submit(ctx, {
      operation: 'db.tokens.invalidate',
      target: database,
      params: {
        database,
        databaseName,
        regenerate: args.regenerate,
        ownDatabase: database === ctx.services.database?.databaseId,
      },
      reason: '',
    });
  },
});
