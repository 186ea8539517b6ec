import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/machine.js';
import {
  createHomeRefresher,
  HOME_DRAW_ATTEMPTS,
  HOME_REFRESH_MAX,
} from '../../src/operations/home/refresh.js';
import { createGroupMembership } from '../../src/policy/groups.js';
import { ephemeral } from '../../src/reply/model.js';
import { memoryLogger } from '../state/temp-db.js';
import { pinnedClock } from '../support/clock.js';
import { publishing } from './home-publishing.js';

function refresher(members: Record<string, string[]> = {}, clock = pinnedClock()) {
  const logger = memoryLogger();
  const groups = createGroupMembership({
    fetchMembers: async (id) => members[id] ?? [],
    now: pinnedClock(),
  });
  const policy = { generation: 0 };
  const homes = createHomeRefresher({
    groups,
    logger,
    delayMs: 60_000,
    now: clock,
    policyGeneration: () => policy.generation,
    draw: async (userId) => ephemeral(`the Home of ${userId}`, []),
  });
  const drawn: string[] = [];
  return { homes, drawn, logger, policy };
}

/** A promise and the function that settles it, for holding a draw open at a chosen point. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const request = (fields: Partial<ApprovalRequest>) =>
  ({ requester: 'U0YOU', approverIds: ['U0LEAD'], escalation: null, ...fields }) as ApprovalRequest;

describe('the Home refresher', () => {
  it('publishes the Home it drew, through the publisher it was given', async () => {
    const { homes } = refresher();
    const shown: string[] = [];
    homes.publishTo({
      permalink: async () => undefined,
      async publish(userId, home) {
        shown.push(`${userId}: ${home.text}`);
        return true;
      },
    });
    homes.changed(['U0YOU']);
    await homes.flush();
    await homes.publish('U0LEAD');
    expect(shown).toEqual(['U0YOU: the Home of U0YOU', 'U0LEAD: the Home of U0LEAD']);
  });

  it('logs a Home it could not draw when opened, throwing nothing', async () => {
    const { homes, logger } = refresher();
    publishing(homes, async () => {
      throw new Error('views.publish failed');
    });
    await expect(homes.publish('U0LEAD')).resolves.toBeUndefined();
    expect(logger.lines.join('\n')).toContain('a Home could not be drawn');
  });

  it('logs a Home Slack would not take as an error, as a failed answer is, whether opened or refreshed', async () => {
    const { homes, logger } = refresher();
    publishing(homes, async () => {
      throw new Error('An API error occurred: not_authed');
    });
    await homes.publish('U0LEAD');
    homes.changed(['U0YOU']);
    await homes.flush();
    const failures = logger.lines
      .map((line) => JSON.parse(line) as { level: string; user?: string; error?: { message: string } })
      .filter((line) => line.error?.message.includes('not_authed'));
    expect(failures.map((line) => [line.user, line.level])).toEqual([
      ['U0LEAD', 'error'],
      ['U0YOU', 'error'],
    ]);
  });

  it('draws each Home once for changes gathered together', async () => {
    const { homes, drawn } = refresher();
    publishing(homes, async (userId) => {
      drawn.push(userId);
    });
    homes.changed(['U0YOU', 'U0LEAD']);
    homes.changed(['U0YOU']);
    homes.requestChanged(request({}));
    await homes.flush();
    expect(drawn.sort()).toEqual(['U0LEAD', 'U0YOU']);
  });

  it('draws the members of approver groups, and for "*" the people whose Home it drew lately', async () => {
    const { homes, drawn } = refresher({ S0LEADS: ['U0GROUPLEAD'] });
    publishing(homes, async (userId) => {
      drawn.push(userId);
    });
    // A Home published lately: requests anyone may approve redraw it.
    await homes.publish('U0SEEN');
    drawn.length = 0;
    homes.requestChanged(request({ approverIds: ['S0LEADS', '*'] }));
    // The group's members are read before their Homes are queued.
    await expect
      .poll(async () => {
        await homes.flush();
        return [...drawn].sort();
      })
      .toEqual(['U0GROUPLEAD', 'U0SEEN', 'U0YOU']);
  });

  it('draws the escalation role’s Homes, its groups’ members included, only once half the time to live has passed', async () => {
    const clock = pinnedClock();
    const { homes, drawn } = refresher({ S0ONCALL: ['U0PAGED'] }, clock);
    publishing(homes, async (userId) => {
      drawn.push(userId);
    });
    const escalating = request({
      createdAt: new Date(clock()),
      expiresAt: new Date(clock() + 30 * 60_000),
      escalation: { role: 'oncall', ids: ['U0ONCALL', 'S0ONCALL'] },
    });
    homes.requestChanged(escalating);
    await homes.flush();
    expect(drawn.sort()).toEqual(['U0LEAD', 'U0YOU']);

    drawn.length = 0;
    clock.advance(15 * 60_000);
    homes.requestChanged(escalating);
    await expect
      .poll(async () => {
        await homes.flush();
        return [...drawn].sort();
      })
      .toEqual(['U0LEAD', 'U0ONCALL', 'U0PAGED', 'U0YOU']);
  });

  it('logs a Home it could not draw and goes on with the others, throwing nothing', async () => {
    const { homes, drawn, logger } = refresher();
    publishing(homes, async (userId) => {
      if (userId === 'U0BAD') throw new Error('views.publish failed');
      drawn.push(userId);
    });
    homes.changed(['U0BAD', 'U0GOOD']);
    await homes.flush();
    expect(drawn).toEqual(['U0GOOD']);
    expect(logger.lines.join('\n')).toContain('a Home could not be refreshed');
  });

  it('goes on drawing later batches after one failed as a whole', async () => {
    const { homes, drawn, logger } = refresher();
    // The failure of a Home is logged; the first time, logging it fails too, and the batch with it.
    const error = logger.error.bind(logger);
    let failed = false;
    logger.error = (message, fields) => {
      if (!failed) {
        failed = true;
        throw new Error('the log is gone');
      }
      error(message, fields);
    };
    publishing(homes, async (userId) => {
      if (userId === 'U0BAD') throw new Error('views.publish failed');
      drawn.push(userId);
    });
    homes.changed(['U0BAD']);
    await homes.flush();
    homes.changed(['U0GOOD']);
    await homes.flush();
    expect(drawn).toEqual(['U0GOOD']);
  });

  it(`draws at most ${HOME_REFRESH_MAX} Homes at once and says how many it left`, async () => {
    const { homes, drawn, logger } = refresher();
    publishing(homes, async (userId) => {
      drawn.push(userId);
    });
    homes.changed(Array.from({ length: HOME_REFRESH_MAX + 5 }, (_, i) => `U0${i}`));
    await homes.flush();
    expect(drawn).toHaveLength(HOME_REFRESH_MAX);
    expect(logger.lines.join('\n')).toMatch(/some Homes were not refreshed.*"left":5/);
  });

  it('draws nothing without a way to draw (the console), and nothing once closed', async () => {
    const { homes, drawn } = refresher();
    homes.changed(['U0YOU']);
    await homes.flush();
    publishing(homes, async (userId) => {
      drawn.push(userId);
    });
    homes.close();
    homes.changed(['U0YOU']);
    await homes.flush();
    expect(drawn).toEqual([]);
  });

  it('publishes nothing it was drawing when closed: a stopping replica leaves the Home that was up', async () => {
    const logger = memoryLogger();
    const drawing = gate();
    const storesClosed = gate();
    const homes = createHomeRefresher({
      groups: createGroupMembership({ fetchMembers: async () => [], now: pinnedClock() }),
      logger,
      delayMs: 60_000,
      now: pinnedClock(),
      policyGeneration: () => 0,
      // The state database closes under the draw, which then draws its failure.
      draw: async () => {
        drawing.open();
        await storesClosed.opened;
        return ephemeral('Something went wrong on our side. Please report correlation id c-0123456789.', []);
      },
    });
    const shown: string[] = [];
    homes.publishTo({
      permalink: async () => undefined,
      async publish(userId, home, current) {
        if (!current()) return false;
        shown.push(`${userId}: ${home.text}`);
        return true;
      },
    });

    const opened = homes.publish('U0LEAD');
    await drawing.opened;
    homes.close();
    storesClosed.open();
    await opened;
    expect(shown).toEqual([]);
  });

  it('draws again, instead of publishing, a Home drawn while the policy changed', async () => {
    const { homes, policy } = refresher();
    const published: number[] = [];
    const held = gate();
    const drawnOnce = gate();
    let draws = 0;
    publishing(homes, async (_userId, current) => {
      const drawnUnder = policy.generation;
      if (++draws === 1) {
        drawnOnce.open();
        await held.opened;
      }
      if (current()) published.push(drawnUnder);
    });

    const opened = homes.publish('U0LEAD2');
    await drawnOnce.opened;
    policy.generation++;
    held.open();
    await opened;

    expect(draws).toBe(2);
    expect(published).toEqual([1]);
  });

  it('draws one Home once at a time: a draw asked for meanwhile waits for the one under way', async () => {
    const { homes } = refresher();
    const events: string[] = [];
    const held = gate();
    const drawing = gate();
    publishing(homes, async (userId) => {
      events.push(`start ${userId}`);
      if (events.length === 1) {
        drawing.open();
        await held.opened;
      }
      events.push(`end ${userId}`);
    });

    const first = homes.publish('U0LEAD');
    await drawing.opened;
    const second = homes.publish('U0LEAD');
    const other = homes.publish('U0OTHER');
    await other;
    held.open();
    await Promise.all([first, second]);

    expect(events).toEqual([
      'start U0LEAD',
      'start U0OTHER',
      'end U0OTHER',
      'end U0LEAD',
      'start U0LEAD',
      'end U0LEAD',
    ]);
  });

  it(`gives up after ${HOME_DRAW_ATTEMPTS} draws while the policy keeps changing, and says so`, async () => {
    const { homes, logger, policy } = refresher();
    let published = 0;
    publishing(homes, async (_userId, current) => {
      policy.generation++;
      if (current()) published++;
    });
    await homes.publish('U0LEAD');
    expect(published).toBe(0);
    expect(logger.lines.join('\n')).toContain('the policy changed each time it was drawn');
  });
});
