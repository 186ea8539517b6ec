/**
 * The channel's defaults as the engine applies them: a zone id a command left out is taken from
 * `/edge context` after parsing, before access checks and audit (so the audit row names the zone),
 * and every answer of that request says so in its footer.
 */
import type { ChannelDefaults } from '../engine/types.js';
import { channelDefaultZone, notingDefault } from './context.js';

export const channelDefaults: ChannelDefaults = {
  async fill(ctx, op, args) {
    const slot = op.channelDefault;
    if (!slot?.missing(args)) return { ok: true, ctx, args };
    const id = await channelDefaultZone(ctx.services, ctx.channelId, slot.kind);
    if (id === undefined) return { ok: false, error: slot.absent };
    ctx.logger.info('the channel’s default zone is used', { kind: slot.kind, zone: id });
    return {
      ok: true,
      ctx: { ...ctx, surface: notingDefault(ctx.surface, slot.kind, id) },
      args: slot.fill(args, id),
      used: { kind: slot.kind, id },
    };
  },

  noting: (surface, used) => notingDefault(surface, used.kind, used.id),
};
