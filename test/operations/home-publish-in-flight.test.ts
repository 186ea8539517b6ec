/**
 * A Home drawn under an old policy is never left published after the new one: the policy can
 * change while the drawn Home is on its way to Slack (views.publish in flight), after the last
 * look at the policy and before Slack has it.
 */
import { describe, expect, it } from 'vitest';
import { createHomeRefresher } from '../../src/operations/home/refresh.js';
import { createGroupMembership } from '../../src/policy/groups.js';
import { ephemeral } from '../../src/reply/model.js';
import { memoryLogger } from '../state/temp-db.js';
import { pinnedClock } from '../support/clock.js';
import { publishing } from './home-publishing.js';

/** A promise and the function that settles it, for holding a publish open at a chosen point. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('a Home published while the policy changes', () => {
  it('is drawn again when the policy changed while it was being published', async () => {
    const policy = { generation: 0 };
    const homes = createHomeRefresher({
      groups: createGroupMembership({ fetchMembers: async () => [], now: pinnedClock() }),
      logger: memoryLogger(),
      delayMs: 60_000,
      now: pinnedClock(),
      policyGeneration: () => policy.generation,
      draw: async (userId) => ephemeral(`the Home of ${userId}`, []),
    });
    // What Slack shows last: the policy generation each publish was drawn under, in order of arrival.
    const shown: number[] = [];
    const inFlight = gate();
    const sent = gate();
    let publishes = 0;
    publishing(homes, async (_userId, current) => {
      const drawnUnder = policy.generation;
      if (!current()) return;
      // views.publish is sent now; Slack has it once the request completes.
      if (++publishes === 1) {
        sent.open();
        await inFlight.opened;
      }
      shown.push(drawnUnder);
    });

    const opened = homes.publish('U0LEAD');
    await sent.opened;
    // The policy file changes while the first Home is on its way.
    policy.generation++;
    inFlight.open();
    await opened;

    expect(shown.at(-1)).toBe(1);
  });
});
