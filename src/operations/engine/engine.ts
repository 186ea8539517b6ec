/**
 * Runs a command line, a button click or a form submission through the same steps whatever
 * the adapter: split, find the operation, check arguments, check access, audit, run, and
 * turn any failure into a reply that says what to do (with a correlation id when unknown).
 */
import { randomUUID } from 'node:crypto';
import type { Authorizer } from '../../policy/authorizer.js';
import { isAlwaysAllowed, type OperationId } from '../../policy/operation-ids.js';
import { closestName } from '../../policy/suggest.js';
import type { ModalValues } from '../../reply/form.js';
import { markupToPlain, md, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, RUN_COMMAND_ACTION } from '../../reply/model.js';
import { StateUnavailableError } from '../../state/errors.js';
import { argsAsJson, type HeldEntry, type HeldReplay, heldParams } from '../approvals/held.js';
import { denialReply, denialSentence, whoamiReply } from './access-text.js';
import { OperationFailedError } from './errors.js';
import { describeFailure } from './failure.js';
import type { Surface, ZoneChoice } from './ports.js';
import { parseArgs, splitCommandHead, tokenize } from './tokenize.js';
import {
  type AccessView,
  type AnyOperation,
  type Caller,
  type ChannelDefaults,
  type ChannelDefaultUsed,
  type CommandForm,
  callerOf,
  type InteractionSubject,
  operationKey,
  type ParseResult,
  type RunContext,
  type Services,
  type SubmissionOutcome,
  type SuggestionInput,
} from './types.js';

export interface CommandInput extends Caller {
  text: string;
  surface: Surface;
}

export interface ActionInput extends Caller {
  actionId: string;
  value: string;
  surface: Surface;
}

export interface SubmissionInput extends Caller {
  callbackId: string;
  privateMetadata: string;
  values: ModalValues;
  surface: Surface;
}

/** A request routed once: whether it changes something, and running it. */
export interface Plan {
  /**
   * Whether it changes something (see Operation.changes): the adapter records its delivery before
   * it runs, so that a redelivery runs nothing twice.
   */
  changes: boolean;
  run(): Promise<void>;
}

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

/** A form's values without the fields left empty, as they are recorded. */
const definedValues = (values: ModalValues): Record<string, string | string[]> =>
  Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined),
  );

/** Where a command line leads, read from its words once. */
type LineRoute =
  /** An operation that takes the rest of the line verbatim (SQL). */
  | { to: 'raw'; op: AnyOperation; rest: string }
  /** A line that cannot be split into words (an unclosed quote), and why. */
  | { to: 'unsplit'; error: string }
  /** The operation the words name (an alias read as its word), and the words after its own. */
  | { to: 'operation'; op: AnyOperation; rest: string[] }
  /** Words that name no operation: a group's leading words, or not a command at all. */
  | { to: 'nowhere'; words: string[] };

/** `c-` and 10 random hex digits; randomUUID draws from a buffered pool, one syscall per many ids. */
export const newCorrelationId = (): string => {
  const uuid = randomUUID();
  return `c-${uuid.slice(0, 8)}${uuid.slice(9, 11)}`;
};

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
  const { operations, services, authorizer, channelDefaults } = options;
  const selfGated = options.selfGated ?? new Set<string>();
  const outcome = (operation: string, result: string) => options.onOutcome?.(operation, result);
  const byKey = new Map(operations.map((op) => [operationKey(op), op]));
  // An operation may have several commands (`help` has two): each id is asked about once.
  const operationIds = [...new Set(operations.map((op) => op.id))];
  const firstWords = [...new Set(operations.map((op) => op.words[0]!))];
  const commandForms = new Map((options.commandForms ?? []).map((form) => [form.callbackId, form]));
  // A bare `/edge` opens the menu where there is one, else the help list.
  const bareWords = byKey.has('menu') ? ['menu'] : ['help'];

  /** The operation whose words are the longest prefix of `tokens`. */
  function match(tokens: string[]): { op: AnyOperation; rest: string[] } | undefined {
    let best: AnyOperation | undefined;
    for (const op of operations) {
      if (op.words.length > tokens.length) continue;
      if (op.words.every((word, i) => tokens[i]?.toLowerCase() === word)) {
        if (!best || op.words.length > best.words.length) best = op;
      }
    }
    return best ? { op: best, rest: tokens.slice(best.words.length) } : undefined;
  }

  const rawOperations = operations.filter((op) => op.rawArgument);

  /** True when `words` are the leading words of some commands, but no command themselves. */
  const isGroup = (words: string[]) =>
    words.length > 0 &&
    operations.some(
      (op) => op.words.length > words.length && words.every((word, i) => op.words[i] === word.toLowerCase()),
    );

  /** `shield enum`: the group is known, its next word is not; suggest the closest one. */
  function notInGroup(words: string[], echo: (text: string) => string): string {
    for (let depth = words.length - 1; depth >= 1; depth--) {
      const head = words.slice(0, depth).map((word) => word.toLowerCase());
      const next = operations
        .filter((op) => op.words.length > depth && head.every((word, i) => op.words[i] === word))
        .map((op) => op.words[depth]!);
      if (next.length === 0) continue;
      const typed = words[depth]!.toLowerCase();
      const suggestion = closestName(typed, [...new Set(next)]);
      const shownWords = [...head, echo(words[depth]!)].join(' ');
      return suggestion
        ? `"${shownWords}" is not a command (did you mean "${[...head, suggestion].join(' ')}"?).`
        : `"${shownWords}" is not a command; /edge help ${head.join(' ')} lists that group.`;
    }
    return `"${echo(words.join(' '))}" is not a command.`;
  }

  /** An operation that takes the rest of the line verbatim (SQL), matched on its leading words. */
  function rawOperation(text: string): { op: AnyOperation; rest: string } | undefined {
    for (const op of rawOperations) {
      const head = splitCommandHead(text, op.words.length);
      if (
        head.words.length === op.words.length &&
        head.words.every((word, i) => word.toLowerCase() === op.words[i])
      )
        return { op, rest: head.rest };
    }
    return undefined;
  }

  /** Reads an operation's flags and arguments from the words after its own. */
  function parseFor(op: AnyOperation, rest: string[]): ParseResult<unknown> {
    const flags = parseArgs(rest, op.flags);
    if (!flags.ok) return flags;
    return op.parse(flags.positionals, flags.flags, { now: services.now() });
  }

  /** The operation a whole command line runs and its arguments, or why it cannot run. */
  function resolveCommand(
    text: string,
  ): { ok: true; op: AnyOperation; args: unknown } | { ok: false; error: string } {
    const raw = rawOperation(text);
    if (raw) {
      const parsed = raw.op.parse(raw.rest ? [raw.rest] : [], {}, { now: services.now() });
      return parsed.ok ? { ok: true, op: raw.op, args: parsed.args } : parsed;
    }
    const tokens = tokenize(text);
    if (!tokens.ok) return tokens;
    const found = match(tokens.tokens);
    if (!found) return { ok: false, error: 'that is not a command' };
    const parsed = parseFor(found.op, found.rest);
    return parsed.ok ? { ok: true, op: found.op, args: parsed.args } : parsed;
  }

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

  const usageReply = (op: AnyOperation | undefined, error: string): Reply =>
    ephemeral(`${error}`, [
      { type: 'text', text: md`:warning: ${error}` },
      ...(op
        ? [{ type: 'context' as const, text: md`Usage: \`${op.usage}\` — for example \`${op.example}\`` }]
        : [
            { type: 'context' as const, text: trusted('Type `/edge help` to see the commands you can run.') },
          ]),
    ]);

  async function audit(
    ctx: RunContext,
    operation: string,
    outcome: string,
    fields: { target?: string; params?: Record<string, unknown>; detail?: string; approvalId?: string },
  ): Promise<void> {
    try {
      await services.audit.append({
        userId: ctx.userId,
        channelId: ctx.channelId,
        operation,
        target: fields.target ?? null,
        params: fields.params ?? {},
        outcome,
        approvalId: fields.approvalId ?? null,
        correlationId: ctx.correlationId,
        detail: fields.detail ?? null,
      });
    } catch (error) {
      ctx.logger.error('audit row could not be written', { error });
      throw new StateUnavailableError('the audit log could not be written');
    }
  }

  /** The reply for a failure, and the outcome word for the audit row. */
  function failureReply(ctx: RunContext, error: unknown) {
    return describeFailure(error, ctx);
  }

  async function safeRespond(ctx: RunContext, reply: Reply): Promise<void> {
    try {
      await ctx.surface.respond(reply);
    } catch (error) {
      ctx.logger.error('reply could not be delivered', { error });
    }
  }

  /** What a request acts on, and the word its audit row ends with (clicked, submitted, typed). */
  type Subject = InteractionSubject & { done: string };

  interface Performance {
    fields: { target?: string; params?: Record<string, unknown> };
    work: () => Promise<Reply | undefined>;
    /** False where the operation checks its own buttons and forms (approval cards). */
    checkAccess?: boolean;
    subjectOf?: () => Promise<Subject | undefined>;
    /** The entry as it is recorded for approval when a rule holds the operation. */
    hold?: () => HeldEntry;
    /** An entry approval rules do not hold (Operation.outsideApproval): it only opens a form, or stops. */
    outside?: boolean;
    /** The approved request this run carries out: the rule that held it is met. */
    approvedAs?: string;
  }

  /**
   * Runs `work` for an operation with access check, audit and error handling around it. An
   * interaction on another operation's business (`subject`) is audited under that operation, and
   * ends as `done` (clicked, submitted) rather than `succeeded`, which is that operation's own word.
   * An operation an approval rule names runs only once approved: its entry is recorded and asked
   * for instead (fail closed: nothing here runs what a decision says needs approval).
   */
  async function perform(ctx: RunContext, op: AnyOperation, run: Performance): Promise<string> {
    const { fields, work, checkAccess = true, subjectOf } = run;
    // What anyone may always run changes nothing and is not audited.
    const audited = !isAlwaysAllowed(op.id);
    // The subject is read once access is granted: a denial stays under the operation itself.
    let subject: Subject | undefined;
    let auditOperation: string = op.id;
    let auditFields: typeof fields & { approvalId?: string } = run.approvedAs
      ? { ...fields, approvalId: run.approvedAs }
      : fields;
    const fail = async (error: unknown) => {
      const failure = failureReply(ctx, error);
      outcome(op.id, failure.outcome);
      await safeRespond(ctx, failure.reply);
      if (audited && !(error instanceof StateUnavailableError))
        await audit(ctx, auditOperation, failure.outcome, { ...auditFields, detail: failure.detail }).catch(
          () => undefined,
        );
      return failure.outcome;
    };
    let held = false;
    try {
      const decision = checkAccess ? await authorizer.decide(op.id, ctx) : undefined;
      if (decision && !decision.allowed) {
        outcome(op.id, 'denied');
        await audit(ctx, auditOperation, 'denied', {
          ...auditFields,
          detail: markupToPlain(denialSentence(decision)),
        });
        await safeRespond(ctx, denialReply(decision));
        return 'denied';
      }
      held = decision?.approval !== undefined && !run.approvedAs && !run.outside && !selfGated.has(op.id);
      // Fail closed: what cannot be recorded for approval is refused, never run.
      if (held && !run.hold)
        throw new OperationFailedError(
          `An approval rule holds ${op.id}, and this way of asking for it cannot be recorded for approval, so nothing ran. Type the command instead.`,
          true,
        );
      subject = held ? undefined : await subjectOf?.();
      if (subject) {
        auditOperation = subject.operation;
        auditFields = { ...fields, target: subject.target ?? fields.target, approvalId: subject.approvalId };
      }
      // Written before anything runs: without a working state store, nothing runs at all.
      if (audited) await audit(ctx, auditOperation, 'started', auditFields);
    } catch (error) {
      return fail(error);
    }
    if (held) return holdForApproval(ctx, op, fields, run.hold!);
    let refused: string | undefined;
    try {
      const reply = await work();
      if (reply) await ctx.surface.respond(reply);
      if (reply?.refused) refused = reply.text;
    } catch (error) {
      return fail(error);
    }
    if (refused !== undefined) {
      outcome(op.id, 'refused');
      if (audited)
        await audit(ctx, auditOperation, 'refused', { ...auditFields, detail: refused }).catch(
          () => undefined,
        );
      return 'refused';
    }
    outcome(op.id, 'succeeded');
    if (audited)
      await audit(ctx, auditOperation, subject?.done ?? 'succeeded', auditFields).catch(() => undefined);
    return 'succeeded';
  }

  /**
   * Asks for approval of an entry instead of running it: the request records the entry whole, the
   * card shows it, and an approver's click runs it (replay below) as the requester.
   */
  async function holdForApproval(
    ctx: RunContext,
    op: AnyOperation,
    fields: Performance['fields'],
    hold: () => HeldEntry,
  ): Promise<string> {
    try {
      const entry = hold();
      const reply = await services.approvals.submit(ctx, {
        operation: op.id as OperationId,
        target: fields.target ?? operationKey(op),
        params: heldParams(entry),
        reason: '',
      });
      if (reply) await ctx.surface.respond(reply);
      const result = reply?.refused ? 'refused' : 'held';
      outcome(op.id, result);
      await audit(ctx, op.id, result, {
        ...fields,
        detail: reply?.refused ? reply.text : 'an approval rule holds it until approved',
      }).catch(() => undefined);
      return result;
    } catch (error) {
      const failure = failureReply(ctx, error);
      outcome(op.id, failure.outcome);
      await safeRespond(ctx, failure.reply);
      if (!(error instanceof StateUnavailableError))
        await audit(ctx, op.id, failure.outcome, { ...fields, detail: failure.detail }).catch(
          () => undefined,
        );
      return failure.outcome;
    }
  }

  /**
   * Runs a typed (or form-typed) command: audited with its target and audit-safe parameters,
   * under another operation's name when the command acts on that one's business.
   */
  async function performCommand(
    ctx: RunContext,
    op: AnyOperation,
    args: unknown,
    asked: { text: string; channelDefault?: ChannelDefaultUsed; approvedAs?: string },
  ): Promise<string> {
    const { commandSubject } = op;
    return perform(ctx, op, {
      fields: {
        target: op.target?.(args),
        params: op.auditParams ? op.auditParams(args) : (args as Record<string, unknown>),
      },
      work: () => op.run(ctx, args),
      subjectOf: commandSubject && subjectReader(ctx, () => commandSubject(ctx, args), 'typed'),
      outside: op.neverHeld === true || op.outsideApproval?.command?.(args) === true,
      hold: () => {
        const json = argsAsJson(args);
        if (json === undefined)
          throw new OperationFailedError(`${op.id}: its arguments cannot be recorded`, true);
        return {
          entry: 'command',
          key: operationKey(op),
          text: asked.text,
          args: json,
          ...(asked.channelDefault ? { channelDefault: asked.channelDefault } : {}),
          ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
        };
      },
      approvedAs: asked.approvedAs,
    });
  }

  /**
   * Reads what a click, form or typed command acts on (Operation.interactionSubject,
   * commandSubject), ending as `done`; a failed read leaves it audited under the operation itself.
   */
  function subjectReader(
    ctx: RunContext,
    read: () => Promise<InteractionSubject | undefined>,
    done: string,
  ): () => Promise<Subject | undefined> {
    return async () => {
      try {
        const subject = await read();
        return subject && { ...subject, done };
      } catch (error) {
        ctx.logger.warn('what the request acts on could not be read', { error });
        return undefined;
      }
    };
  }

  /** The operation and handler name an action or callback id routes to. */
  function route(id: string): { op: AnyOperation | undefined; name: string } {
    // `#…` after the name only keeps ids unique within a block (Slack requires it).
    const bare = id.split('#')[0]!;
    const separator = bare.lastIndexOf(':');
    return { op: byKey.get(bare.slice(0, separator)), name: bare.slice(separator + 1) };
  }

  /** Where a command line leads, its words split and matched once. */
  function routeLine(text: string): LineRoute {
    const raw = rawOperation(text);
    if (raw) return { to: 'raw', ...raw };
    const tokens = tokenize(text);
    if (!tokens.ok) return { to: 'unsplit', error: tokens.error };
    const typed = tokens.tokens.length === 0 ? bareWords : tokens.tokens;
    const alias = options.aliases?.[typed[0]!.toLowerCase()];
    const words = alias ? [alias, ...typed.slice(1)] : typed;
    const found = match(words);
    return found ? { to: 'operation', ...found } : { to: 'nowhere', words };
  }

  function planCommand(input: CommandInput): Plan {
    const line = routeLine(input.text);
    const op = line.to === 'raw' || line.to === 'operation' ? line.op : undefined;
    return { changes: op?.changes?.command === true, run: () => runCommand(input, line) };
  }

  function planAction(input: ActionInput): Plan {
    // A next-step button runs its command as if the clicker had typed it: same policy and audit.
    if (input.actionId.split('#')[0] === RUN_COMMAND_ACTION)
      return planCommand({ ...callerOf(input), text: input.value, surface: input.surface });
    const routed = route(input.actionId);
    return {
      changes: routed.op?.changes?.interactions?.includes(routed.name) ?? false,
      run: () => runAction(input, routed),
    };
  }

  /** Whether a form's submission changes something: a command form's command, or the operation's form. */
  function submissionChanges(callbackId: string): boolean {
    const commandForm = commandForms.get(callbackId);
    if (commandForm) return commandForm.changes;
    const { op, name } = route(callbackId);
    return op?.changes?.interactions?.includes(name) ?? false;
  }

  /** Runs a command line as routed: its usage, a group's help, or the operation it names. */
  async function runCommand(input: CommandInput, line: LineRoute): Promise<void> {
    const correlationId = newCorrelationId();
    const caller = callerOf(input);
    if (line.to === 'raw') {
      const ctx = context(caller, input.surface, correlationId, line.op.id);
      const parsed = line.op.parse(line.rest ? [line.rest] : [], {}, { now: services.now() });
      if (!parsed.ok) {
        outcome(line.op.id, 'usage');
        await safeRespond(ctx, usageReply(line.op, parsed.error));
        return;
      }
      await performCommand(ctx, line.op, parsed.args, { text: input.text });
      return;
    }
    const base = context(caller, input.surface, correlationId, 'command');
    if (line.to === 'unsplit') {
      outcome('unknown', 'usage');
      await safeRespond(base, usageReply(undefined, line.error));
      return;
    }
    if (line.to === 'nowhere') {
      const { words } = line;
      // A group word alone (`/edge shield`, `/edge db tokens`) shows that group's help.
      const help = operations.find((op) => op.id === 'help');
      if (help && isGroup(words)) {
        const ctx = context(caller, input.surface, correlationId, help.id);
        await perform(ctx, help, {
          fields: {},
          work: () => help.run(ctx, { topic: words.map((word) => word.toLowerCase()) }),
        });
        return;
      }
      // Enough of the words to recognise them; an error never repeats a whole paste.
      const echo = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
      const first = echo(words[0] ?? '');
      const suggestion = closestName(first.toLowerCase(), firstWords);
      const error = firstWords.includes(first.toLowerCase())
        ? notInGroup(words, echo)
        : `"${first}" is not a command${suggestion ? ` (did you mean "${suggestion}"?)` : ''}.`;
      outcome('unknown', 'usage');
      await safeRespond(base, usageReply(undefined, error));
      return;
    }
    const { op, rest } = line;
    const asked = context(caller, input.surface, correlationId, op.id);
    const parsed = parseFor(op, rest);
    if (!parsed.ok) {
      outcome(op.id, 'usage');
      await safeRespond(asked, usageReply(op, parsed.error));
      return;
    }
    let filled: Awaited<ReturnType<ChannelDefaults['fill']>>;
    try {
      filled = await channelDefaults.fill(asked, op, parsed.args);
    } catch (error) {
      const failure = failureReply(asked, error);
      outcome(op.id, failure.outcome);
      await safeRespond(asked, failure.reply);
      return;
    }
    if (!filled.ok) {
      outcome(op.id, 'usage');
      await safeRespond(asked, usageReply(op, filled.error));
      return;
    }
    await performCommand(filled.ctx, op, filled.args, { text: input.text, channelDefault: filled.used });
  }

  /** Runs a button's handler as routed. */
  async function runAction(
    input: ActionInput,
    { op, name }: { op: AnyOperation | undefined; name: string },
  ): Promise<void> {
    const correlationId = newCorrelationId();
    const caller = callerOf(input);
    const handler = op?.actions?.[name];
    const ctx = context(caller, input.surface, correlationId, op?.id ?? 'action');
    if (!op || !handler) {
      ctx.logger.warn('unknown action', { actionId: input.actionId });
      await safeRespond(ctx, usageReply(undefined, 'That button is no longer supported.'));
      return;
    }
    const { interactionSubject } = op;
    await perform(ctx, op, {
      fields: { params: { action: input.actionId, value: input.value } },
      work: () => handler(ctx, input.value),
      checkAccess: !op.ownAccessForInteractions,
      subjectOf:
        interactionSubject && subjectReader(ctx, () => interactionSubject(ctx, input.value), 'clicked'),
      outside: op.neverHeld === true || op.outsideApproval?.interactions?.includes(name) === true,
      hold: () => ({
        entry: 'button',
        key: operationKey(op),
        actionId: input.actionId,
        value: input.value,
        ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
      }),
    });
  }

  async function submit(input: SubmissionInput): Promise<{ errors: Record<string, string> } | Plan> {
    const correlationId = newCorrelationId();
    const caller = callerOf(input);
    const changes = submissionChanges(input.callbackId);
    const commandForm = commandForms.get(input.callbackId);
    if (commandForm) {
      // The form stands for a command line: checked as typed, its complaints on the fields.
      const read = commandForm.read(input.values);
      if ('errors' in read) return read;
      const resolved = resolveCommand(read.command);
      if (!resolved.ok)
        return { errors: { [commandForm.fieldOf(resolved.error, input.values)]: resolved.error } };
      const asked = context(caller, input.surface, correlationId, resolved.op.id);
      let filled: Awaited<ReturnType<ChannelDefaults['fill']>>;
      try {
        filled = await channelDefaults.fill(asked, resolved.op, resolved.args);
      } catch (error) {
        const failure = failureReply(asked, error);
        return { changes, run: () => safeRespond(asked, failure.reply) };
      }
      if (!filled.ok) return { errors: { [commandForm.fieldOf(filled.error, input.values)]: filled.error } };
      const used = filled.used;
      return {
        changes,
        run: async () => {
          await performCommand(filled.ctx, resolved.op, filled.args, {
            text: read.command,
            channelDefault: used,
          });
        },
      };
    }
    const separator = input.callbackId.lastIndexOf(':');
    const op = byKey.get(input.callbackId.slice(0, separator));
    const handler = op?.submissions?.[input.callbackId.slice(separator + 1)];
    const ctx = context(caller, input.surface, correlationId, op?.id ?? 'submission');
    if (!op || !handler) {
      ctx.logger.warn('unknown form', { callbackId: input.callbackId });
      return {
        changes,
        run: () => safeRespond(ctx, usageReply(undefined, 'That form is no longer supported.')),
      };
    }
    let checked: SubmissionOutcome;
    try {
      checked = await handler(ctx, input.values, input.privateMetadata);
    } catch (error) {
      const failure = failureReply(ctx, error);
      return { changes, run: () => safeRespond(ctx, failure.reply) };
    }
    if ('errors' in checked) return { errors: checked.errors };
    const { interactionSubject } = op;
    return {
      changes,
      run: async () => {
        await perform(ctx, op, {
          fields: { target: checked.target, params: checked.params ?? { form: input.callbackId } },
          work: checked.run,
          // A form that stands in for a button (the typed confirmation of an approval) is
          // checked like that button: by the operation itself, not by grants and channels.
          checkAccess: !op.ownAccessForInteractions,
          subjectOf:
            interactionSubject &&
            subjectReader(ctx, () => interactionSubject(ctx, input.privateMetadata), 'submitted'),
          hold: () => ({
            entry: 'form',
            key: operationKey(op),
            callbackId: input.callbackId,
            privateMetadata: input.privateMetadata,
            values: definedValues(input.values),
            ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
          }),
        });
      },
    };
  }

  const replay: HeldReplay = async (entry, { request, surface, correlationId }) => {
    const caller: Caller = {
      userId: request.requester,
      channelId: request.channelId,
      ...(entry.threadTs ? { threadTs: entry.threadTs } : {}),
    };
    const op = byKey.get(entry.key);
    if (!op) return { ok: false, detail: `/edge ${entry.key.replace(/\./g, ' ')} is no longer a command` };
    const approvedAs = request.id;
    const ctx = { ...context(caller, surface, correlationId, op.id), approvedAs };
    let result: string;
    switch (entry.entry) {
      case 'command': {
        const used = entry.channelDefault;
        const asked = used ? { ...ctx, surface: channelDefaults.noting(ctx.surface, used) } : ctx;
        result = await performCommand(asked, op, entry.args, { text: entry.text, approvedAs });
        break;
      }
      case 'button': {
        const handler = op.actions?.[route(entry.actionId).name];
        if (!handler) return { ok: false, detail: 'that button is no longer supported' };
        result = await perform(ctx, op, {
          fields: { params: { action: entry.actionId, value: entry.value } },
          work: () => handler(ctx, entry.value),
          approvedAs,
        });
        break;
      }
      case 'form': {
        const handler = op.submissions?.[route(entry.callbackId).name];
        if (!handler) return { ok: false, detail: 'that form is no longer supported' };
        result = await performForm(ctx, op, entry, handler, approvedAs);
        break;
      }
    }
    return result === 'succeeded'
      ? { ok: true, detail: 'It ran as recorded; its answer went to the requester where they asked.' }
      : { ok: false, detail: `It ended ${result}; the requester was told why.` };
  };

  /** A held form, checked again with the values recorded and run as approved. */
  async function performForm(
    ctx: RunContext,
    op: AnyOperation,
    entry: Extract<HeldEntry, { entry: 'form' }>,
    handler: NonNullable<AnyOperation['submissions']>[string],
    approvedAs: string,
  ): Promise<string> {
    let checked: SubmissionOutcome;
    try {
      checked = await handler(ctx, entry.values, entry.privateMetadata);
    } catch (error) {
      const failure = failureReply(ctx, error);
      await safeRespond(ctx, failure.reply);
      return failure.outcome;
    }
    if ('errors' in checked) {
      const problems = Object.entries(checked.errors).map(([field, error]) => `${field}: ${error}`);
      await safeRespond(
        ctx,
        usageReply(
          undefined,
          `The form as approved is no longer accepted (${problems.join('; ')}); nothing ran. Fill it in again.`,
        ),
      );
      return 'refused';
    }
    return perform(ctx, op, {
      fields: { target: checked.target, params: checked.params ?? { form: entry.callbackId } },
      work: checked.run,
      approvedAs,
    });
  }
  return {
    operations,
    resolve: resolveCommand,
    plan: (input) => ('text' in input ? planCommand(input) : planAction(input)),
    submit,
    async refuseUnrecorded(input) {
      const ctx = context(input, input.surface, newCorrelationId(), 'delivery');
      ctx.logger.error('the state database could not record a delivery; nothing was run');
      await safeRespond(ctx, failureReply(ctx, new StateUnavailableError('delivery not recorded')).reply);
    },
    suggestZones: options.suggestZones,
    replay,
  };
}
