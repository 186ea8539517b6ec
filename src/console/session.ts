/**
 * The console's read–run loop: `/edge …` lines go to the engine as commands, `:click N` as
 * button actions, forms opened on the way are asked field by field and submitted. Everything
 * runs through the same engine (policy, audit, approvals, state) as Slack.
 */
import type { Engine } from '../operations/engine/engine.js';
import { closestName } from '../policy/suggest.js';
import { markupToPlain } from '../reply/markup.js';
import { askForm } from './form.js';
import { safeForTerminal } from './style.js';
import { type ConsoleScreen, createConsoleSurface, type PendingForm } from './surface.js';
import type { Terminal } from './terminal.js';

export interface ConsoleSessionOptions {
  engine: Engine;
  terminal: Terminal;
  screen: ConsoleScreen;
  now: () => number;
  /** Who is at the keyboard at the start (and where `:as` without a switch leads back). */
  userId: string;
  /** The channel commands are typed in. */
  channelId: string;
}

export interface ConsoleSession {
  /** Reads and runs lines until `:quit` or the end of input; returns once all work is done. */
  run(): Promise<void>;
}

const CONSOLE_COMMANDS = ['help', 'quit', 'exit', 'as', 'in', 'click', 'buttons', 'cancel', 'back'];
const CHANNEL_ID = /^[CGD][A-Z0-9]{1,30}$/;
const USER_ID = /^[UW][A-Z0-9]{1,30}$/;

export const CONSOLE_HELP = [
  'Console commands:',
  '  /edge SUBCOMMAND …  run a command; the /edge prefix may be left out ("dns" works too)',
  '  :click N            press button [N]',
  '  :buttons            list the buttons on screen',
  '  :as USER_ID         act as another user (":as U0LEAD" to approve a request)',
  '  :in CHANNEL_ID      type commands in another channel (":in C0INCIDENT"); :in alone says where',
  '  :back               in a form, go to the field before',
  '  :cancel             leave a form while filling it in',
  '                      (the other commands work inside a form too; :click waits until it is done)',
  '  :help               this list',
  '  :quit               leave (so do :exit and Ctrl-D)',
].join('\n');

/** The /edge text of a command line, or an error for other slash commands. */
export function commandText(line: string): { ok: true; text: string } | { ok: false; error: string } {
  const match = /^\/edge(?:\s+|$)(.*)$/is.exec(line);
  if (match) return { ok: true, text: match[1] ?? '' };
  if (line.startsWith('/'))
    return { ok: false, error: `Only /edge is known here, not ${line.split(/\s/)[0]}. Type /edge help.` };
  return { ok: true, text: line };
}

export function createConsoleSession(options: ConsoleSessionOptions): ConsoleSession {
  const { engine, terminal, screen } = options;
  let channelId = options.channelId;
  const { style, book, logger } = screen;
  const inflight = new Set<Promise<unknown>>();
  let userId = options.userId;
  let inForm = false;
  /** Set by :quit typed inside a form: the form ends, then the console. */
  let leaving = false;

  const say = (text: string) => terminal.print(text);
  const fail = (text: string) => terminal.print(style.red(`✗ ${text}`));
  const prompt = () => {
    const who = userId === options.userId ? '' : userId;
    const where = channelId === options.channelId ? '' : `#${channelId}`;
    return style.bold(who || where ? `edge(${[who, where].filter(Boolean).join(' ')})> ` : 'edge> ');
  };

  /** Awaited here and, should the session end first, before it returns. */
  async function track<T>(work: Promise<T>): Promise<T> {
    inflight.add(work);
    try {
      return await work;
    } finally {
      inflight.delete(work);
    }
  }

  async function fillForm(form: PendingForm): Promise<void> {
    const { modal } = form;
    const fieldIds = new Set(modal.fields.map((field) => field.id));
    let values: Record<string, string | string[] | undefined> | undefined;
    let only: Set<string> | undefined;
    let errors: Record<string, string> | undefined;
    inForm = true;
    try {
      for (;;) {
        const answer = await askForm(modal, terminal, {
          style,
          now: options.now,
          values,
          only,
          errors,
          command: commandInForm,
        });
        if (answer.kind === 'ended')
          return say(
            style.yellow(
              leaving ? 'Leaving: the form was not submitted.' : 'End of input: the form was not submitted.',
            ),
          );
        if (answer.kind === 'cancelled') return say(style.yellow('Form cancelled; nothing was submitted.'));
        values = answer.values;
        const surface = createConsoleSurface(screen, { userId: form.userId, channelId: form.channelId });
        const result = await track(
          engine.submit({
            callbackId: modal.callbackId,
            privateMetadata: modal.privateMetadata,
            values,
            userId: form.userId,
            channelId: form.channelId,
            surface,
          }),
        );
        if ('proceed' in result) {
          await track(result.proceed());
          return;
        }
        errors = result.errors;
        const atFields = Object.keys(errors).filter((id) => fieldIds.has(id));
        for (const [id, message] of Object.entries(errors))
          if (!fieldIds.has(id)) fail(safeForTerminal(`${modal.title}: ${message}`));
        // Errors that name no field send the whole form round again.
        only =
          atFields.length > 0 && atFields.length === Object.keys(errors).length
            ? new Set(atFields)
            : undefined;
        say(style.yellow('Please correct the form:'));
      }
    } finally {
      inForm = false;
    }
  }

  async function fillForms(): Promise<void> {
    for (let form = screen.forms.shift(); form && !leaving; form = screen.forms.shift()) await fillForm(form);
  }

  async function click(argument: string | undefined): Promise<void> {
    if (!argument || !/^\d+$/.test(argument))
      return fail('Usage: :click N (the number in [N] before a button).');
    const found = book.button(Number(argument));
    if (found.kind === 'unknown')
      return fail(`There is no button [${argument}]. :buttons lists the buttons on screen.`);
    if (found.kind === 'retired')
      return fail(
        `Button [${argument}] was on message #${found.message.id}, which has since been replaced or updated.`,
      );
    const { button, message } = found.shown;
    if (message.visibleTo && message.visibleTo !== userId)
      return fail(
        `Button [${argument}] is on a message only ${message.visibleTo} sees; switch with :as ${message.visibleTo}.`,
      );
    if (button.confirm) {
      // The confirmation text is mrkdwn in Slack; the title is plain.
      say(
        `${style.bold(safeForTerminal(button.confirm.title))}\n${safeForTerminal(markupToPlain(button.confirm.text))}`,
      );
      const answer =
        (await terminal.read(`${button.confirm.confirm} (y) or ${button.confirm.deny} (n)? `)) ?? '';
      if (!/^(y|yes)$/i.test(answer.trim()) && answer.trim() !== button.confirm.confirm)
        return say(style.yellow('Not sent.'));
    }
    await track(
      engine.action({
        actionId: button.actionId,
        value: button.value,
        userId,
        channelId: message.channelId,
        surface: createConsoleSurface(screen, { userId, channelId: message.channelId, origin: message }),
      }),
    );
  }

  function listButtons(): void {
    const live = book
      .live()
      .filter((shown) => !shown.message.visibleTo || shown.message.visibleTo === userId);
    if (live.length === 0) {
      say('No buttons on screen.');
      return;
    }
    say(
      live
        .map(
          (shown) =>
            `  [${shown.number}] ${safeForTerminal(shown.button.text)}  ${style.dim(`(#${shown.message.id})`)}`,
        )
        .join('\n'),
    );
  }

  function switchUser(argument: string | undefined): void {
    if (!argument) {
      say(`You are ${userId}. :as USER_ID acts as someone else; :as ${options.userId} comes back.`);
      return;
    }
    const next = argument.toUpperCase();
    if (!USER_ID.test(next)) {
      fail(`"${argument}" is not a Slack user id (U… or W…, e.g. U0LEAD).`);
      return;
    }
    userId = next;
    say(
      next === options.userId
        ? `You are ${next} again.`
        : `You are now ${next}; commands and clicks are theirs. :as ${options.userId} comes back.`,
    );
  }

  function switchChannel(argument: string | undefined): void {
    if (!argument) {
      say(
        `You are typing in #${channelId}. :in CHANNEL_ID moves elsewhere; :in ${options.channelId} comes back.`,
      );
      return;
    }
    const next = argument.replace(/^#/, '').toUpperCase();
    if (!CHANNEL_ID.test(next)) {
      fail(`"${argument}" is not a Slack channel id (C…, e.g. C0INCIDENT).`);
      return;
    }
    channelId = next;
    say(`Commands now go to #${next}. :in ${options.channelId} comes back.`);
  }

  /** A console command typed at a form's field; true when it leaves the console. */
  async function commandInForm(line: string): Promise<boolean> {
    const word = line.slice(1).trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    if (word === 'click') {
      fail('Finish this form, or :cancel it, before pressing a button.');
      return false;
    }
    if (word === 'quit' || word === 'exit') {
      leaving = true;
      return true;
    }
    return consoleCommand(line);
  }

  /** Runs one console command; true means leave. */
  async function consoleCommand(line: string): Promise<boolean> {
    const [word = '', argument] = line.slice(1).trim().split(/\s+/);
    switch (word.toLowerCase()) {
      case 'help':
        say(CONSOLE_HELP);
        return false;
      case 'quit':
      case 'exit':
        return true;
      case 'as':
        switchUser(argument);
        return false;
      case 'in':
        switchChannel(argument);
        return false;
      case 'click':
        await click(argument);
        await fillForms();
        return leaving;
      case 'buttons':
        listButtons();
        return false;
      case 'cancel':
      case 'back':
        fail('No form is open.');
        return false;
      default: {
        const suggestion = closestName(word.toLowerCase(), CONSOLE_COMMANDS);
        fail(
          `Unknown console command ":${word}"${suggestion ? ` (did you mean ":${suggestion}"?)` : ''}. Type :help for the list.`,
        );
        return false;
      }
    }
  }

  async function handle(line: string): Promise<boolean> {
    const text = line.trim();
    if (text === '') return false;
    if (text.startsWith(':')) return consoleCommand(text);
    const command = commandText(text);
    if (!command.ok) {
      fail(command.error);
      return false;
    }
    await track(
      engine.command({
        text: command.text,
        userId,
        channelId,
        surface: createConsoleSurface(screen, { userId, channelId }),
      }),
    );
    await fillForms();
    return leaving;
  }

  terminal.onInterrupt(() => {
    if (inForm) terminal.inject(':cancel');
    else {
      say(style.dim('(Ctrl-C: leaving)'));
      terminal.close();
    }
  });

  return {
    async run() {
      if (terminal.interactive)
        // A person may press a button (a progress message's Cancel) while a command still runs.
        terminal.intercept((line) => {
          if (inflight.size === 0 || inForm || !/^:click\s/i.test(line.trim())) return false;
          void click(line.trim().split(/\s+/)[1]).catch((error: unknown) =>
            logger.error('click failed', { error }),
          );
          return true;
        });
      for (;;) {
        const line = await terminal.read(prompt());
        if (line === undefined) break;
        try {
          if (await handle(line)) break;
        } catch (error) {
          logger.error('console line failed', { error });
          fail('Something went wrong in the console; the log has the details.');
        }
      }
      // Replies of work still running (a click made while a command ran) are shown before leaving.
      await Promise.allSettled([...inflight]);
      terminal.intercept(undefined);
    },
  };
}
