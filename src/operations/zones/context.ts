/**
 * A channel's defaults: `/edge context` shows them, `/edge context set pullzone=308006
 * shieldzone=5101` sets them (`pullzone=` removes one), `/edge context clear` removes them all.
 * Commands that take a zone id (logs, the Shield export, watches) take the channel's when none is
 * typed, and say so in the footer of every answer.
 */
import { closestName } from '../../policy/suggest.js';
import { PLATFORM_ID_DIGITS, type ZoneKind } from '../../reply/form.js';
import { type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock } from '../../reply/model.js';
import type { JsonValue } from '../../state/canonical-json.js';
import {
  CHANNEL_DEFAULT_NAMES,
  type ChannelDefaultName,
  type ChannelDefaults,
  type ChannelDefaultsChange,
  changeChannelDefaults,
  readChannelDefaults,
} from '../../state/channel-defaults.js';
import { StateUnavailableError } from '../../state/errors.js';
import { UserFacingError } from '../engine/errors.js';
import type { Surface } from '../engine/ports.js';
import { defineOperation, type ParseResult, type RunContext, type Services } from '../engine/types.js';
import { findZone } from '../shared/change-targets.js';

const ZONE_WORDS: Record<ZoneKind, { name: string; Name: string; list: string; example: number }> = {
  pullzone: { name: 'pull zone', Name: 'Pull zone', list: '/edge pullzones', example: 308006 },
  shieldzone: { name: 'Shield zone', Name: 'Shield zone', list: '/edge shield zones', example: 5101 },
};

/**
 * The channel's default id of this kind, or undefined: the one lookup every command that may
 * take a default uses (the engine for logs and the Shield export, and watches).
 */
export async function channelDefaultZone(
  services: Pick<Services, 'state'>,
  channelId: string,
  kind: ZoneKind,
): Promise<number | undefined> {
  try {
    return (await readChannelDefaults(services.state, channelId))[kind];
  } catch (error) {
    throw new StateUnavailableError('the channel’s defaults could not be read', { cause: error });
  }
}

/** The footer of an answer that took the channel's default. */
export function defaultNote(kind: ZoneKind, id: number): Markup {
  return md`${ZONE_WORDS[kind].Name} ${id} is this channel’s default (/edge context).`;
}

/** The reply with the footer that says the channel's default was used. */
export function withDefaultNote(reply: Reply, kind: ZoneKind, id: number): Reply {
  return { ...reply, blocks: [...reply.blocks, { type: 'context', text: defaultNote(kind, id) }] };
}

/** A surface whose every answer to the requester carries that footer. */
export function notingDefault(surface: Surface, kind: ZoneKind, id: number): Surface {
  return {
    respond: (reply) => surface.respond(withDefaultNote(reply, kind, id)),
    openModal: (modal) => surface.openModal(modal),
    openPanel: (panel) => surface.openPanel(panel),
    postToChannel: (channelId, reply, threadTs) => surface.postToChannel(channelId, reply, threadTs),
    update: (ref, reply) => surface.update(ref, reply),
    sendDirect: (userId, reply) => surface.sendDirect(userId, reply),
    deleteMessage: (ref) => surface.deleteMessage(ref),
    permalink: (ref) => surface.permalink(ref),
  };
}

/** What to say when a command needs a zone id that was neither typed nor set for the channel. */
export function noDefaultError(kind: ZoneKind, example: string): string {
  const { name } = ZONE_WORDS[kind];
  return `give the ${name} id, e.g. ${example}, or set this channel’s default with /edge context set ${kind}=ID (${ZONE_WORDS[kind].list} lists them)`;
}

// ------------------------------------------------------------------ /edge context

async function showReply(ctx: RunContext, note?: Markup): Promise<Reply> {
  const defaults = await channelDefaults(ctx);
  const lines = CHANNEL_DEFAULT_NAMES.map((name) => {
    const id = defaults[name];
    return id === undefined
      ? md`• ${ZONE_WORDS[name].Name}: none (\`/edge context set ${name}=ID\`)`
      : md`• ${ZONE_WORDS[name].Name}: *${id}*`;
  });
  const none = CHANNEL_DEFAULT_NAMES.every((name) => defaults[name] === undefined);
  const blocks: ReplyBlock[] = [
    ...(note ? [{ type: 'text' as const, text: note }] : []),
    { type: 'header', text: 'This channel’s defaults' },
    { type: 'text', text: trusted(lines.join('\n')) },
    {
      type: 'context',
      text: none
        ? trusted(
            '`/edge logs` and `/edge shield export` take these ids when none is typed. `/edge pullzones` and `/edge shield zones` list the ids.',
          )
        : trusted(
            '`/edge logs` and `/edge shield export` take these ids when none is typed, and say so. `/edge context set pullzone=` removes one; `/edge context clear` removes them all.',
          ),
    },
  ];
  const summary = CHANNEL_DEFAULT_NAMES.map(
    (name) => `${ZONE_WORDS[name].name} ${defaults[name] ?? 'none'}`,
  ).join(', ');
  return ephemeral(`This channel’s defaults: ${summary}`, blocks);
}

async function channelDefaults(ctx: RunContext): Promise<ChannelDefaults> {
  try {
    return await readChannelDefaults(ctx.services.state, ctx.channelId);
  } catch (error) {
    throw new StateUnavailableError('the channel’s defaults could not be read', { cause: error });
  }
}

/** `/edge context`: the defaults of this channel; anyone may see them. */
export const contextShow = defineOperation({
  id: 'context.show',
  words: ['context'],
  usage: '/edge context',
  summary: 'the pull zone and Shield zone this channel’s commands take when none is typed',
  example: '/edge context',
  flags: {},
  parse: (positionals): ParseResult<Record<string, never>> =>
    positionals.length > 0
      ? {
          ok: false,
          error: `"${positionals[0]!.slice(0, 40)}" is not a context command: use /edge context, /edge context set pullzone=ID shieldzone=ID or /edge context clear`,
        }
      : { ok: true, args: {} },
  run: (ctx) => showReply(ctx),
});

const KEY_SPELLINGS = (name: string) => name.toLowerCase().replace(/[-_\s]/g, '');

type SetArgs = { change: ChannelDefaultsChange };

/** `pullzone=308006 shieldzone=` → the change; each name once, each value an id or nothing. */
export function parseContextSet(positionals: readonly string[]): ParseResult<SetArgs> {
  if (positionals.length === 0)
    return {
      ok: false,
      error:
        'say what to set, e.g. /edge context set pullzone=308006 shieldzone=5101 (pullzone= with nothing after it removes that default)',
    };
  const change: ChannelDefaultsChange = {};
  for (const word of positionals) {
    const equals = word.indexOf('=');
    const key = KEY_SPELLINGS(equals === -1 ? word : word.slice(0, equals));
    const shown = word.slice(0, 40);
    if (equals === -1)
      return {
        ok: false,
        error: `"${shown}" needs a value: write NAME=ID, e.g. pullzone=308006 (or pullzone= to remove it)`,
      };
    const name = CHANNEL_DEFAULT_NAMES.find((candidate) => candidate === key);
    if (!name) {
      const guess = closestName(key, CHANNEL_DEFAULT_NAMES);
      return {
        ok: false,
        error: `"${shown.slice(0, equals)}" is not a default${guess ? ` (did you mean ${guess}?)` : ''}; a channel has defaults for ${CHANNEL_DEFAULT_NAMES.join(' and ')}`,
      };
    }
    if (name in change) return { ok: false, error: `${name} is given twice` };
    const value = word.slice(equals + 1).trim();
    if (value === '') {
      change[name] = null;
      continue;
    }
    const { name: words, example, list } = ZONE_WORDS[name];
    if (!PLATFORM_ID_DIGITS.test(value) || Number(value) <= 0)
      return {
        ok: false,
        error: `${name}=${value.slice(0, 20)}: give the ${words} id as a number, e.g. ${name}=${example} (${list} lists them)`,
      };
    change[name] = Number(value);
  }
  return { ok: true, args: { change } };
}

/** Refuses an id the platform does not know, naming it and where the ids are listed. */
async function checkZonesExist(ctx: RunContext, change: ChannelDefaultsChange): Promise<void> {
  for (const name of CHANNEL_DEFAULT_NAMES) {
    const id = change[name];
    if (id === undefined || id === null) continue;
    const found = await findZone(ctx, name, id);
    // Past the zones the bot reads (a very large account), an id cannot be refused as unknown.
    if ('absent' in found) {
      const { name: words, list } = ZONE_WORDS[name];
      throw new UserFacingError(
        `No ${words} ${id} was found, so this channel’s defaults are unchanged; ${list} lists the ${words}s.`,
      );
    }
  }
}

const asJson = (defaults: ChannelDefaults): Record<string, JsonValue> => ({ ...defaults });

/** Stores the change, audits it with what it replaced, and shows the channel's defaults now. */
async function applyChange(ctx: RunContext, change: ChannelDefaultsChange): Promise<Reply> {
  await checkZonesExist(ctx, change);
  let result: Awaited<ReturnType<typeof changeChannelDefaults>>;
  try {
    result = await changeChannelDefaults(ctx.services.state, ctx.channelId, change, { userId: ctx.userId });
  } catch (error) {
    throw new StateUnavailableError('the channel’s defaults could not be stored', { cause: error });
  }
  const { before, after } = result;
  try {
    await ctx.services.audit.append({
      userId: ctx.userId,
      channelId: ctx.channelId,
      operation: 'context.set',
      target: ctx.channelId,
      params: { before: asJson(before), after: asJson(after) },
      outcome: 'changed',
      approvalId: null,
      correlationId: ctx.correlationId,
      detail: null,
    });
  } catch (error) {
    // The change is made; the started row already names it. Said in the log, not hidden.
    ctx.logger.error('the change of channel defaults could not be audited', { error });
  }
  const changed = CHANNEL_DEFAULT_NAMES.filter((name) => before[name] !== after[name]);
  const note =
    changed.length === 0
      ? md`Nothing changed.`
      : md`${nest(mention(ctx.userId))} changed this channel’s defaults: ${changed
          .map((name) => `${ZONE_WORDS[name].name} ${before[name] ?? 'none'} → ${after[name] ?? 'none'}`)
          .join('; ')}.`;
  return showReply(ctx, note);
}

/** `/edge context set pullzone=308006 shieldzone=5101`: needs the context.set grant. */
export const contextSet = defineOperation({
  id: 'context.set',
  words: ['context', 'set'],
  usage: '/edge context set [pullzone=ID] [shieldzone=ID]',
  summary:
    'set the pull zone and Shield zone this channel’s commands take when none is typed (pullzone= removes one)',
  example: '/edge context set pullzone=308006 shieldzone=5101',
  flags: {},
  changes: { command: true },
  parse: (positionals) => parseContextSet(positionals),
  auditParams: (args) => ({ change: args.change }),
  run: (ctx, args) => applyChange(ctx, args.change),
});

/** `/edge context clear`: removes every default of this channel. */
export const contextClear = defineOperation({
  id: 'context.set',
  words: ['context', 'clear'],
  usage: '/edge context clear',
  summary: 'remove this channel’s defaults',
  example: '/edge context clear',
  flags: {},
  changes: { command: true },
  parse: (positionals): ParseResult<SetArgs> =>
    positionals.length > 0
      ? {
          ok: false,
          error:
            'context clear removes every default and takes nothing more; to remove one, write /edge context set pullzone=',
        }
      : {
          ok: true,
          args: {
            change: Object.fromEntries(CHANNEL_DEFAULT_NAMES.map((name) => [name, null])) as Record<
              ChannelDefaultName,
              null
            >,
          },
        },
  auditParams: (args) => ({ change: args.change }),
  run: (ctx, args) => applyChange(ctx, args.change),
});
