import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { fingerprint } from '../secrets/registry.js';
import { failedExecution, type GatedOperation } from './approvals/gate.js';
import { defineOperation, parseWith } from './engine/types.js';
import { namedId, pullZoneToChange } from './shared/change-targets.js';
import { PullZoneIdArg } from './shared/ids.js';

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Within the 8–36 characters the API accepts (reference 05). */
export const SECURITY_KEY_LENGTH = 32;

/** A key from the CSPRNG; randomInt draws without modulo bias. */
export function generateSecurityKey(length = SECURITY_KEY_LENGTH): string {
  let key = '';
  for (let i = 0; i < length; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

const ArgsSchema = z.object({
  pullZoneId: PullZoneIdArg,
  reason: z.string().max(500, { error: 'keep the reason under 500 characters' }),
});

const ParamsSchema = z.object({
  pullZoneId: z.number().int().positive(),
  /** As the platform named it when the change was asked for; absent on requests from before. */
  pullZone: z.object({ name: z.string().nullable(), hostname: z.string().nullable() }).optional(),
});

export const resetKeyGate: GatedOperation = {
  id: 'pullzone.reset-key',
  describe: (params) => `Reset the token-authentication key of pull zone ${String(params.pullZoneId)}`,
  done: (params) => `Key reset for pull zone ${String(params.pullZoneId)}`,
  fields: (params) => {
    const pullZone = ParamsSchema.safeParse(params).data?.pullZone;
    return [
      { label: 'Pull zone', value: namedId(String(params.pullZoneId), pullZone?.name, pullZone?.hostname) },
      { label: 'New key', value: `${SECURITY_KEY_LENGTH} random characters, sent to the requester by DM` },
    ];
  },
  async execute(params, ctx) {
    const { pullZoneId } = ParamsSchema.parse(params);
    const key = generateSecurityKey();
    // Registered before it goes anywhere, so no log line or audit row can carry it.
    ctx.services.secrets.add(key);
    try {
      await ctx.services.platform.resetPullZoneSecurityKey(pullZoneId, key);
    } catch (error) {
      return failedExecution(ctx, error);
    }
    return {
      ok: true,
      detail: `The new key is ${fingerprint(key)}.`,
      secrets: [{ label: `New security key of pull zone ${pullZoneId}`, value: key }],
    };
  },
};

/** `/edge pullzone reset-key ID [REASON…]`: a new random key, after approval. */
export const pullzoneResetKey = defineOperation({
  id: 'pullzone.reset-key',
  words: ['pullzone', 'reset-key'],
  usage: '/edge pullzone reset-key PULLZONE_ID [REASON…]',
  summary: 'reset a pull zone’s token-authentication key (needs approval); the new key comes to you by DM',
  example: '/edge pullzone reset-key 308006 key leaked in a CI log',
  flags: {},
  changes: { command: true },
  parse: (positionals) =>
    positionals.length === 0
      ? { ok: false, error: 'give the pull zone id' }
      : parseWith(ArgsSchema, { pullZoneId: positionals[0], reason: positionals.slice(1).join(' ') }),
  target: (args) => String(args.pullZoneId),
  async run(ctx, args) {
    const pullZone = await pullZoneToChange(ctx, args.pullZoneId);
    return ctx.services.approvals.submit(ctx, {
      operation: 'pullzone.reset-key',
      target: String(args.pullZoneId),
      params: { pullZoneId: args.pullZoneId, pullZone },
      reason: args.reason,
    });
  },
});
