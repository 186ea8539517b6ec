/**
 * What the acknowledging thread (ack-thread.ts) and the bot's main thread (threaded-receiver.ts)
 * say to each other, checked on arrival on both sides.
 */
import { z } from 'zod';

/** What a click is acknowledged as on arrival: Slack reads no body in the ack of a block action. */
export const BLOCK_ACTIONS = 'block_actions';

/**
 * What an event acknowledged on arrival is (by the receiving thread or, over Socket Mode, by the
 * app): the command of a slash command's body when it is one of `commands`, or a click
 * (block_actions), whose listener acknowledges with no body as its first step and whose ack
 * Slack takes without one. Anything else, a payload-less Socket Mode envelope included, is left
 * to Bolt's own checks and its listener's ack.
 */
export function acknowledgedOnArrival(body: unknown, commands: readonly string[]): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { command, type } = body as { command?: unknown; type?: unknown };
  if (type === BLOCK_ACTIONS) return BLOCK_ACTIONS;
  return typeof command === 'string' && commands.includes(command) ? command : undefined;
}

export const HTTP_LOG_LEVELS = ['info', 'warn', 'error'] as const;

/** Bolt's unhandled-request timeout for `function_executed` events, fixed in its HTTPResponseAck. */
export const BOLT_FUNCTION_ACK_MS = 5_001;

export const AckThreadDataSchema = z.object({
  signingSecret: z.string().min(1),
  port: z.number().int().min(0),
  endpoint: z.string(),
  /** The slash commands acknowledged on arrival, with an empty body, before the main thread hears of them. */
  commands: z.array(z.string()),
  /** Routes answered by the main thread (health, readiness, metrics). */
  routes: z.array(z.object({ path: z.string(), methods: z.array(z.string()) })),
  unhandledRequestTimeoutMillis: z.number().int().positive(),
  /** Commands acknowledged on arrival that may wait for the main thread; more are answered as busy. */
  maxWaiting: z.number().int().positive(),
  /** A request whose body is still arriving this long after its headers is dropped unread: Slack has given up on it. */
  bodyDeadlineMs: z.number().int().positive(),
  /** A request still unanswered this long after its headers came is answered 500. */
  lastAnswerMs: z.number().int().positive(),
  /** What happens per request and anyone may cause (a refusal, a drop) is logged as a count this often. */
  reportEveryMs: z.number().int().positive(),
});
export type AckThreadData = z.infer<typeof AckThreadDataSchema>;

/** From the acknowledging thread to the main thread. */
export const FromAckThreadSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('listening'), port: z.number().int() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
  z.object({
    type: z.literal('event'),
    id: z.number().int(),
    body: z.record(z.string(), z.unknown()),
    retryNum: z.number().int().optional(),
    retryReason: z.string().optional(),
    /** Set when the thread acknowledged it already: the command, and how long the ack took. */
    acknowledged: z.object({ command: z.string(), seconds: z.number() }).optional(),
  }),
  z.object({ type: z.literal('route'), id: z.number().int(), path: z.string(), method: z.string() }),
  z.object({ type: z.literal('log'), level: z.enum(HTTP_LOG_LEVELS), text: z.string() }),
]);
export type FromAckThread = z.infer<typeof FromAckThreadSchema>;

/** From the main thread to the acknowledging thread. */
export const ToAckThreadSchema = z.discriminatedUnion('type', [
  /** Build Bolt's receiver with these settings and listen (once; the thread may start before). */
  z.object({ type: z.literal('listen'), settings: AckThreadDataSchema }),
  /** The listener's ack, with its body when it has one. */
  z.object({ type: z.literal('ack'), id: z.number().int(), response: z.unknown().optional() }),
  /** The app is done with the event; `error` when it threw (`code` is Bolt's error code). */
  z.object({
    type: z.literal('done'),
    id: z.number().int(),
    error: z.object({ message: z.string(), code: z.string().optional() }).optional(),
  }),
  z.object({
    type: z.literal('route'),
    id: z.number().int(),
    status: z.number().int(),
    body: z.string(),
    contentType: z.string(),
  }),
  z.object({ type: z.literal('stop') }),
]);
export type ToAckThread = z.infer<typeof ToAckThreadSchema>;
