/**
 * An approval rule may name any operation (PRODUCT §3), not only the changes that ask for
 * approval themselves. What such a rule holds back is recorded as the entry that asked for it —
 * a typed command with its parsed arguments, a button with its value, a form with its values —
 * and is run, once approved, exactly as recorded, as the requester, where it was asked.
 */
import { z } from 'zod';
import type { ApprovalRequest } from '../../approvals/machine.js';
import type { OperationId } from '../../policy/operation-ids.js';
import { channelRef, md, nest } from '../../reply/markup.js';
import type { MessageRef, Reply } from '../../reply/model.js';
import type { JsonValue } from '../../state/canonical-json.js';
import type { Messenger, Surface } from '../engine/ports.js';
import { deliveryErrorCode, goneFromChannel } from '../shared/delivery-errors.js';
import type { ExecutionOutcome, GatedOperation } from './gate.js';

const Where = { threadTs: z.string().optional() };

/** What ran, so that it can run again as recorded: one shape per kind of entry. */
export const HeldEntrySchema = z.discriminatedUnion('entry', [
  z.object({
    entry: z.literal('command'),
    /** The operation's key (its words joined by dots): several commands share an operation id. */
    key: z.string().min(1),
    /** As typed, for people; what runs is `args`. */
    text: z.string(),
    /** The parsed arguments, window and channel default resolved when it was asked. */
    args: z.json(),
    /** A zone the channel's defaults filled in, named in the answer's footer as when it was asked. */
    channelDefault: z.object({ kind: z.enum(['pullzone', 'shieldzone']), id: z.number() }).optional(),
    ...Where,
  }),
  z.object({
    entry: z.literal('button'),
    key: z.string().min(1),
    actionId: z.string().min(1),
    value: z.string(),
    ...Where,
  }),
  z.object({
    entry: z.literal('form'),
    key: z.string().min(1),
    callbackId: z.string().min(1),
    privateMetadata: z.string(),
    /** Every field as submitted: the form is checked again with them, and run. */
    values: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    ...Where,
  }),
]);

export type HeldEntry = z.infer<typeof HeldEntrySchema>;

/** The parameters a held request stores: the entry, nothing else. */
export const heldParams = (entry: HeldEntry): Record<string, JsonValue> => ({
  held: entry as unknown as JsonValue,
});

export function readHeldEntry(params: Record<string, JsonValue>): HeldEntry {
  return HeldEntrySchema.parse(params.held);
}

/**
 * Arguments as JSON, or undefined when they would not come back the same (a Date, a function,
 * undefined inside an array): such an entry cannot be held, and is refused rather than run.
 */
export function argsAsJson(args: unknown): JsonValue | undefined {
  const text = JSON.stringify(args ?? {});
  if (text === undefined) return undefined;
  const back: unknown = JSON.parse(text);
  return sameJson(args ?? {}, back) ? (back as JsonValue) : undefined;
}

/** Deep equality of a value with its JSON round trip; undefined object members are dropped by both. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || Array.isArray(b))
    return false;
  if (Object.getPrototypeOf(a) !== Object.prototype) return false;
  const defined = Object.entries(a).filter(([, value]) => value !== undefined);
  const other = b as Record<string, unknown>;
  return (
    defined.length === Object.keys(other).length &&
    defined.every(([key, value]) => Object.hasOwn(other, key) && sameJson(value, other[key]))
  );
}

/** The command an entry stands for, as people read it. */
export function entryWords(entry: HeldEntry): string {
  const command = `/edge ${entry.key.replace(/\./g, ' ')}`;
  switch (entry.entry) {
    case 'command':
      return `/edge ${entry.text.trim()}`;
    case 'button':
      return `a button of ${command}`;
    case 'form':
      return `the form of ${command}`;
  }
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A member whose name says it is a moment: `from`, `toMs`, `since`, `startedAt`, … */
const TIME_NAME = /(?:^|[a-z_])(?:from|to|since|until|start|end|at)(?:Ms)?$/i;
/** Milliseconds since 1970 between the years 2000 and 2100: anything else is not read as a time. */
const EPOCH_MS = { min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) };

/**
 * The moments among recorded values (epoch milliseconds, as numbers or digits), as people read
 * them: the values themselves stay in full beside this line, which only makes them readable.
 */
export function readableTimes(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => {
    const name = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    const ms =
      typeof member === 'number'
        ? member
        : typeof member === 'string' && /^\d{12,13}$/.test(member)
          ? Number(member)
          : Number.NaN;
    if (TIME_NAME.test(key) && Number.isInteger(ms) && ms >= EPOCH_MS.min && ms < EPOCH_MS.max)
      return [
        `${name} = ${new Date(ms)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC')}`,
      ];
    return readableTimes(member, name);
  });
}

/** The card's line for the moments among `values`, when there are any. */
function timesField(values: unknown): { label: string; value: string }[] {
  const times = readableTimes(values);
  return times.length > 0 ? [{ label: 'Times (UTC)', value: times.join('\n') }] : [];
}

/** Runs a held entry as recorded, as the requester where they asked; says how it ended. */
export type HeldReplay = (
  entry: HeldEntry,
  run: { request: ApprovalRequest; surface: Surface; correlationId: string },
) => Promise<ExecutionOutcome>;

/**
 * The gate of an operation whose rule holds its entries: the card shows the entry in full (the
 * command and the arguments it runs with, or the button's value, or every field of the form).
 */
export function heldGate(id: OperationId, replay: HeldReplay): GatedOperation {
  return {
    id,
    lockPerRequester: true,
    answersItself: true,
    describe: (params) => `Run ${entryWords(readHeldEntry(params))}`,
    done: (params) => `Ran ${entryWords(readHeldEntry(params))}`,
    fields(params) {
      const entry = readHeldEntry(params);
      const asked = entry.threadTs ? 'the thread it was asked in' : 'the channel it was asked in';
      const answer = { label: 'Answer', value: `${asked}, or privately to the requester as usual for it` };
      switch (entry.entry) {
        case 'command':
          return [
            { label: 'Command', value: `/edge ${entry.text.trim()}`, code: true },
            {
              label: 'Runs with',
              value: `${pretty(entry.args)}${entry.channelDefault ? `\n(${entry.channelDefault.kind} ${entry.channelDefault.id} from the channel's defaults)` : ''}`,
              code: true,
            },
            ...timesField(entry.args),
            answer,
          ];
        case 'button':
          return [
            { label: 'Button', value: entry.actionId, code: true },
            { label: 'Value', value: entry.value, code: true },
            answer,
          ];
        case 'form':
          return [
            { label: 'Form', value: entry.callbackId, code: true },
            { label: 'Every field', value: pretty(entry.values), code: true },
            ...timesField(entry.values),
            answer,
          ];
      }
    },
    execute(params, ctx, request) {
      if (!request) throw new Error('a held entry runs only from its approval request');
      return replay(readHeldEntry(params), {
        request,
        surface: requesterSurface(ctx.surface, request, readHeldEntry(params).threadTs),
        correlationId: ctx.correlationId,
      });
    },
  };
}

/**
 * Answers the requester of an approved request where they asked: what was for the channel goes
 * there (in its thread), what was for them alone comes by DM (nobody else can see an answer in a
 * channel that was meant for one person, once the moment of asking has passed), and a channel
 * that refuses the post sends the answer by DM with a line saying why.
 */
export function requesterSurface(messenger: Messenger, request: ApprovalRequest, threadTs?: string): Surface {
  const about = (reply: Reply, note: string): Reply => ({
    ...reply,
    visibility: 'dm',
    replaceOriginal: false,
    inPlaceOf: undefined,
    blocks: [{ type: 'context', text: channelNote(request, note) }, ...reply.blocks],
  });
  const direct = (reply: Reply, note: string) => messenger.sendDirect(request.requester, about(reply, note));
  const respond = async (reply: Reply): Promise<MessageRef | undefined> => {
    if (reply.visibility !== 'channel') return direct(reply, 'the answer, for you alone');
    if (reply.inPlaceOf) {
      try {
        await messenger.update(reply.inPlaceOf, { ...reply, inPlaceOf: undefined });
        return reply.inPlaceOf;
      } catch {
        // The progress message is gone: posted anew below.
      }
    }
    try {
      return await messenger.postToChannel(
        request.channelId,
        { ...reply, inPlaceOf: undefined, replaceOriginal: false },
        threadTs,
      );
    } catch (error) {
      const why = goneFromChannel(error) ?? deliveryErrorCode(error) ?? 'no answer from Slack';
      return direct(reply, `the answer, which could not be posted there: ${why}`);
    }
  };
  return {
    postToChannel: (channelId, reply, thread) => messenger.postToChannel(channelId, reply, thread),
    update: (ref, reply) => messenger.update(ref, reply),
    sendDirect: (userId, reply) => messenger.sendDirect(userId, reply),
    deleteMessage: (ref) => messenger.deleteMessage(ref),
    permalink: (ref) => messenger.permalink(ref),
    respond,
    openPanel: async (panel) => {
      await respond(panel.reply);
    },
    async openModal(modal) {
      await direct(
        {
          visibility: 'dm',
          text: `${modal.title} is a form, which opens only from a click`,
          blocks: [
            {
              type: 'text',
              text: md`“${modal.title}” is a form, and forms open only from a click: run the command again to fill it in.`,
            },
          ],
        },
        'what it needs',
      );
    },
  };
}

/** "Approved request X, asked in #C: NOTE." */
const channelNote = (request: ApprovalRequest, note: string) =>
  md`Approved request ${request.id}, asked in ${nest(channelRef(request.channelId))}: ${note}.`;
