/**
 * What the engine holds, built once by createEngine and handed explicitly to each of its verbs:
 * route.ts, command.ts, interaction.ts and perform.ts keep no state of their own.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import type { Surface } from './ports.js';
import type { AnyOperation, Caller, ChannelDefaults, CommandForm, RunContext, Services } from './types.js';

export interface EngineState {
  operations: readonly AnyOperation[];
  /** Each operation by its key (its words joined by dots), which prefixes its action and callback ids. */
  byKey: ReadonlyMap<string, AnyOperation>;
  /** The operations that take the rest of the line verbatim (SQL). */
  rawOperations: readonly AnyOperation[];
  /** Every command's first word, for "did you mean". */
  firstWords: readonly string[];
  /** What a bare `/edge` runs: the menu where there is one, else the help list. */
  bareWords: readonly string[];
  /** Other words for a command's first word (`log` for `logs`). */
  aliases: Readonly<Record<string, string>>;
  /** Forms whose submission is a command line, run as if typed, by callback id. */
  commandForms: ReadonlyMap<string, CommandForm>;
  services: Services;
  authorizer: Authorizer;
  /**
   * Operations that ask for approval themselves (through services.approvals.submit, with a card
   * of their own); an approval rule on any other operation holds its entries here.
   */
  selfGated: ReadonlySet<string>;
  channelDefaults: ChannelDefaults;
  /** Counts a handled command, click or form with its outcome (metrics). */
  outcome(operation: string, result: string): void;
  /** The context a request runs in: who asked and where, its surface, logger and access view. */
  context(caller: Caller, surface: Surface, correlationId: string, operation: string): RunContext;
}
