/** The console's own commands, typed with a colon: `:help`, `:click N`, `:as U0LEAD`, … */
import { closestName } from '../../policy/suggest.js';
import { listButtons } from './buttons.js';
import { click } from './click.js';
import { fillForms } from './forms.js';
import { fail, type SessionState, say } from './state.js';
import { switchChannel, switchUser } from './switch.js';

const CONSOLE_COMMANDS = ['help', 'quit', 'exit', 'as', 'in', 'click', 'buttons', 'cancel', 'back'];

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
  '  :quit               leave (so do :exit, Ctrl-D, and Ctrl-C twice on an empty line)',
  'Ctrl-C clears the line, leaves a form, and cancels the long job (logs, export) of a command running.',
].join('\n');

/** The forms a command or a click opened, filled with the console's commands at hand. */
export const fillOpenForms = (state: SessionState) => fillForms(state, (line) => commandInForm(state, line));

/** A console command typed at a form's field; true when it leaves the console. */
async function commandInForm(state: SessionState, line: string): Promise<boolean> {
  const word = line.slice(1).trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (word === 'click') {
    fail(state, 'Finish this form, or :cancel it, before pressing a button.');
    return false;
  }
  if (word === 'quit' || word === 'exit') {
    state.leaving = true;
    return true;
  }
  return consoleCommand(state, line);
}

/** Runs one console command; true means leave. */
export async function consoleCommand(state: SessionState, line: string): Promise<boolean> {
  const [word = '', argument] = line.slice(1).trim().split(/\s+/);
  switch (word.toLowerCase()) {
    case 'help':
      say(state, CONSOLE_HELP);
      return false;
    case 'quit':
    case 'exit':
      return true;
    case 'as':
      switchUser(state, argument);
      return false;
    case 'in':
      switchChannel(state, argument);
      return false;
    case 'click':
      await click(state, argument);
      await fillOpenForms(state);
      return state.leaving;
    case 'buttons':
      listButtons(state);
      return false;
    case 'cancel':
    case 'back':
      fail(state, 'No form is open.');
      return false;
    default: {
      const suggestion = closestName(word.toLowerCase(), CONSOLE_COMMANDS);
      fail(
        state,
        `Unknown console command ":${word}"${suggestion ? ` (did you mean ":${suggestion}"?)` : ''}. Type :help for the list.`,
      );
      return false;
    }
  }
}
