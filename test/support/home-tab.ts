/**
 * The app's Home tab as a test sees it through the fake Slack: the view last published for a
 * user, opening it with a signed `app_home_opened`, and clicking one of its buttons as Slack
 * sends that click (from a `home` view, with no channel).
 */
import { expect } from 'vitest';
import { createApprovalService } from '../../src/approvals/service.js';
import { memoryLogger } from '../state/temp-db.js';
import type { RecordedCall } from './fake-slack.js';
import { type Harness, SIGNING_SECRET } from './harness.js';
import { blockActions, viewOutput } from './payloads.js';
import { postSigned } from './signer.js';

export function homeTab(h: () => Harness) {
  const text = (value: unknown) => JSON.stringify(value);

  /** The Home tab as last published for the user, as JSON, once `predicate` holds for it. */
  async function homeOf(userId: string, predicate: (home: string) => boolean = () => true): Promise<string> {
    const call = await h().fake.waitFor(
      'views.publish',
      (c: RecordedCall) =>
        c.args.user_id === userId &&
        c ===
          h()
            .fake.callsTo('views.publish')
            .filter((p) => p.args.user_id === userId)
            .at(-1) &&
        predicate(text(c.args.view)),
      5_000,
    );
    return text(call.args.view);
  }

  /** Opens the user's Home tab and returns it as published after that. */
  async function openHome(userId: string, predicate: (home: string) => boolean = () => true) {
    const before = h().fake.callsTo('views.publish').length;
    expect((await h().openHome(userId)).status).toBe(200);
    await h().fake.waitFor(
      'views.publish',
      (c) => c.args.user_id === userId && h().fake.callsTo('views.publish').indexOf(c) >= before,
      5_000,
    );
    return homeOf(userId, predicate);
  }

  /** Clicks a button of the user's Home tab. */
  function clickOnHome(userId: string, actionId: string, value: string) {
    const view = h().fake.views.find((v) => v.userId === userId && v.view.type === 'home');
    return postSigned(
      h().eventsUrl,
      blockActions({
        actionId,
        value,
        userId,
        view: { ...viewOutput({ viewId: view?.id ?? 'V0HOME' }), type: 'home' },
      }),
      { signingSecret: SIGNING_SECRET },
    );
  }

  /**
   * `count` pending key resets for pull zones from `firstZone` on, asked by U0YOU for
   * `approverIds`, straight into the state database, as a backlog would have built up.
   */
  async function backlog(count: number, firstZone: number, approverIds: string[], requester = 'U0YOU') {
    const service = createApprovalService({
      store: h().runtime.services.state,
      audit: h().runtime.services.audit,
      logger: memoryLogger(),
      now: () => new Date(h().clock()),
    });
    for (let i = 0; i < count; i++) {
      const created = await service.request({
        operation: 'pullzone.reset-key',
        target: String(firstZone + i),
        params: { pullZoneId: firstZone + i },
        requester,
        channelId: 'C0OPS',
        reason: `backlog ${i}`,
        requirement: { required: 1, approvers: ['leads'], approverIds, confirm: false, ttlMs: 30 * 60_000 },
        correlationId: `c-backlog-${firstZone}-${i}`,
      });
      expect(created.ok).toBe(true);
    }
  }

  return { homeOf, openHome, clickOnHome, backlog };
}
