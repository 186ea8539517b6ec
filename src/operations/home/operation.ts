import { defineOperation } from '../types.js';

/**
 * `/edge home`: the Home tab as a private answer, for the console (which has no Home tab) and
 * for whoever prefers typing. Slack draws the same reply in the Home tab.
 */
export const home = defineOperation({
  id: 'home',
  words: ['home'],
  usage: '/edge home',
  summary:
    'what waits for your approval, your open requests, recent actions and watches, and what you may run',
  example: '/edge home',
  flags: {},
  parse: (positionals) =>
    positionals.length > 0 ? { ok: false, error: 'home takes no arguments' } : { ok: true, args: {} },
  run: (ctx) => ctx.services.home.show(ctx),
});
