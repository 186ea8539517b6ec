/**
 * Runs a command line, a button click or a form submission through the same steps whatever
 * the adapter: split, find the operation, check arguments, check access, audit, run, and
 * turn any failure into a reply that says what to do (with a correlation id when unknown).
 * createEngine holds the state; each step is a file of its own: route.ts finds the operation,
 * command.ts and interaction.ts plan and run what was typed or clicked, perform.ts runs it.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import type { HeldReplay } from '../approvals/held.js';
import { whoamiReply } from './access-text.js';
import { type CommandInput, type Plan, planCommand } from './command.js';
import { type ActionInput, planAction, replay, type SubmissionInput, submit } from './interaction.js';
import { refuseUnrecorded } from './perform.js';
import type { Surface, ZoneChoice } from './ports.js';
import { resolveCommand } from './route.js';
import type { EngineState } from './state.js';
import {
  type AccessView,
  type AnyOperation,
  type Caller,
  type ChannelDefaults,
  type CommandForm,
  operationKey,
  type RunContext,
  type Services,
  type SuggestionInput,
} from './types.js';

export interface Engine {
  /** A command line or a click, routed: its line is split and matched once, for both answers. */
  plan(input: CommandInput | ActionInput): Plan;
  /**
   * Validates a form. Errors come back for the fields at fault; otherwise its plan, whose `run`
   * is to be called after the adapter has acknowledged the submission.
   */
  submit(input: SubmissionInput): Promise<{ errors: Record<string, string> } | Plan>;
  operations: readonly AnyOperation[];
  /** The operation a command line runs and the arguments it parses to, or why it cannot run. */
  resolve(text: string): { ok: true; op: AnyOperation; args: unknown } | { ok: false; error: string };
  /** Tells the user that nothing was run because the state database could not record the request. */
  refuseUnrecorded(input: Caller & { surface: Surface }): Promise<void>;
  /**
   * Zones for a picker as the caller types: only kinds they may list here (pullzone.list,
   * shieldzone.list), and only what can be had within `waitMs`. Never throws: nothing is empty.
   */
  suggestZones(input: SuggestionInput): Promise<ZoneChoice[]>;
  /** Runs an approved request's held entry as recorded, as its requester, where they asked. */
  replay: HeldReplay;
}

export function createEngine(options: {
  operations: readonly AnyOperation[];
  /** Other words for a command's first word (`log` for `logs`). */
  aliases?: Readonly<Record<string, string>>;
  services: Services;
  authorizer: Authorizer;
  /** Forms whose submission is a command line, run as if typed. */
  commandForms?: readonly CommandForm[];
  /** Called once per handled command, click or form with its outcome (metrics). */
  onOutcome?: (operation: string, outcome: string) => void;
  /**
   * Operations that ask for approval themselves (through services.approvals.submit, with a card
   * of their own); an approval rule on any other operation holds its entries here.
   */
  selfGated?: ReadonlySet<string>;
  /** Fills a zone id a command left out from the channel's defaults (operations/zones/defaults.ts). */
  channelDefaults: ChannelDefaults;
  /** Zones for a picker, as suggestZones offers them (operations/zones/suggest.ts). */
  suggestZones: (input: SuggestionInput) => Promise<ZoneChoice[]>;
}): Engine {
  const { operations, services, authorizer } = options;
  const byKey = new Map(operations.map((op) => [operationKey(op), op]));
  // An operation may have several commands (`help` has two): each id is asked about once.
  const operationIds = [...new Set(operations.map((op) => op.id))];

  function accessView(caller: Caller): AccessView {
    return {
      operations: () => operations,
      allowed: () => authorizer.allowedAmong(operationIds, caller),
      held: async () => {
        const ruled = authorizer.ruledAmong(operationIds);
        const allowed = await authorizer.allowedAmong(operationIds, caller);
        return new Set([...ruled].filter((id) => allowed.has(id)));
      },
      explain: async () =>
        whoamiReply(caller, await authorizer.explanation(caller), (id) => {
          const op = operations.find((candidate) => candidate.id === id);
          return op ? `/edge ${op.words.join(' ')}` : undefined;
        }),
    };
  }

  function context(caller: Caller, surface: Surface, correlationId: string, operation: string): RunContext {
    return {
      ...caller,
      services,
      surface,
      correlationId,
      logger: services.logger.child({
        correlationId,
        operation,
        user: caller.userId,
        channel: caller.channelId,
      }),
      access: accessView(caller),
    };
  }

  const state: EngineState = {
    operations,
    byKey,
    rawOperations: operations.filter((op) => op.rawArgument),
    firstWords: [...new Set(operations.map((op) => op.words[0]!))],
    // A bare `/edge` opens the menu where there is one, else the help list.
    bareWords: byKey.has('menu') ? ['menu'] : ['help'],
    aliases: options.aliases ?? {},
    commandForms: new Map((options.commandForms ?? []).map((form) => [form.callbackId, form])),
    services,
    authorizer,
    selfGated: options.selfGated ?? new Set<string>(),
    channelDefaults: options.channelDefaults,
    outcome: (operation, result) => options.onOutcome?.(operation, result),
    context,
  };

  return {
    operations,
    plan: (input) => ('text' in input ? planCommand(state, input) : planAction(state, input)),
    submit: (input) => submit(state, input),
    resolve: (text) => resolveCommand(state, text),
    refuseUnrecorded: (input) => refuseUnrecorded(state, input),
    suggestZones: options.suggestZones,
    replay: (entry, run) => replay(state, entry, run),
  };
}
