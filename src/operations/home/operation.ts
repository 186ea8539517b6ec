import { defineOperation } from '../engine/types.js';

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
  run: (ctx) => ctx.services.home.show({ ...ctx, permalink: (ref) => ctx.surface.permalink(ref) }),
  // The Home's buttons run as part of it, allowed wherever the Home is (a Home click answers in
  // the app's DM, where grants and channels would refuse what the Home itself offers).
  changes: { interactions: ['stop', 'stop-digest'] },
  actions: {
    /**
     * "Show all waiting for you" / "Show all of yours": the Home's two lists whole, privately. Its
     * Approve buttons check the approver themselves; everyone's requests stay with `/edge approvals`
     * and its grant.
     */
    approvals: (ctx) => ctx.services.approvals.list(ctx, false, 'yours'),
    /** Stop on a watch: checked against watch.logs in the watch's own channel. */
    stop: (ctx, value) => ctx.services.watches.stop(ctx, value, { fromHome: true }),
    /** Stop on a digest: for its owner, or whoever holds digest.set in its channel. */
    'stop-digest': (ctx, value) => ctx.services.digests.stop(ctx, value, { fromHome: true }),
  },
});
