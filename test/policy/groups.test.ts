import { describe, expect, it } from 'vitest';
import { createGroupMembership, groupIdsIn, MAX_GROUP_CACHE_MS } from '../../src/policy/groups.js';
import { parsePolicy } from '../../src/policy/load.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock } from '../support/clock.js';
import { EXAMPLE_POLICY_YAML } from './example-policy.js';

/** A stand-in for Slack's usergroups.users.list: counts calls and can be made to fail or wait. */
function fakeDirectory(groups: Record<string, string[]>) {
  const calls: string[] = [];
  let failing = false;
  let gate: Promise<void> | undefined;
  return {
    calls,
    fail(value: boolean) {
      failing = value;
    },
    hold() {
      let open!: () => void;
      gate = new Promise((resolve) => {
        open = resolve;
      });
      return () => {
        gate = undefined;
        open();
      };
    },
    fetchMembers: async (groupId: string) => {
      calls.push(groupId);
      if (gate) await gate;
      if (failing) throw new Error('usergroups.users.list: ratelimited');
      return groups[groupId] ?? [];
    },
  };
}

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('createGroupMembership', () => {
  it('returns the groups the user is in among those asked about', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE', 'U0ERIN'], S0LEADS: ['U0BOB'] });
    const membership = createGroupMembership({ fetchMembers: directory.fetchMembers, now: clock().now });
    expect(await membership.groupsOf('U0DAVE', ['S0ONCALL', 'S0LEADS'])).toEqual(new Set(['S0ONCALL']));
    expect(await membership.groupsOf('U0NOBODY', ['S0ONCALL', 'S0LEADS'])).toEqual(new Set());
  });

  it('does not read a group again within the ttl, and does after it', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'] });
    const time = clock();
    const membership = createGroupMembership({
      fetchMembers: directory.fetchMembers,
      ttlMs: 60_000,
      now: time.now,
    });
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    time.advance(59_999);
    await membership.groupsOf('U0ERIN', ['S0ONCALL']);
    expect(directory.calls).toEqual(['S0ONCALL']);
    time.advance(1);
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    expect(directory.calls).toEqual(['S0ONCALL', 'S0ONCALL']);
  });

  it('never caches for longer than five minutes, whatever ttl is asked for', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'] });
    const time = clock();
    const membership = createGroupMembership({
      fetchMembers: directory.fetchMembers,
      ttlMs: 60 * 60_000,
      now: time.now,
    });
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    time.advance(MAX_GROUP_CACHE_MS);
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    expect(directory.calls).toHaveLength(2);
  });

  it('shares one read between concurrent lookups of the same group', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'] });
    const membership = createGroupMembership({ fetchMembers: directory.fetchMembers, now: clock().now });
    const release = directory.hold();
    const lookups = Promise.all([
      membership.groupsOf('U0DAVE', ['S0ONCALL']),
      membership.groupsOf('U0ERIN', ['S0ONCALL']),
      membership.groupsOf('U0DAVE', ['S0ONCALL', 'S0ONCALL']),
    ]);
    await Promise.resolve();
    release();
    expect(await lookups).toEqual([new Set(['S0ONCALL']), new Set(), new Set(['S0ONCALL'])]);
    expect(directory.calls).toEqual(['S0ONCALL']);
  });

  it('treats a group that cannot be read as not containing the user, logs it, and retries next time', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'], S0LEADS: ['U0DAVE'] });
    const lines: string[] = [];
    const logger = createLogger({
      clock: pinnedClock(),
      level: 'info',
      secrets: new SecretRegistry(),
      write: (line) => lines.push(line),
    });
    const membership = createGroupMembership({
      fetchMembers: directory.fetchMembers,
      logger,
      now: clock().now,
    });
    await membership.groupsOf('U0DAVE', ['S0LEADS']);
    directory.fail(true);
    expect(await membership.lookup('U0DAVE', ['S0ONCALL', 'S0LEADS'])).toEqual({
      groups: new Set(['S0LEADS']),
      unresolved: new Set(['S0ONCALL']),
    });
    expect(lines.join('\n')).toContain('"groupId":"S0ONCALL"');
    directory.fail(false);
    expect(await membership.groupsOf('U0DAVE', ['S0ONCALL'])).toEqual(new Set(['S0ONCALL']));
  });

  it('reads a group again after it is invalidated', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'] });
    const membership = createGroupMembership({ fetchMembers: directory.fetchMembers, now: clock().now });
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    membership.invalidate('S0ONCALL');
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    membership.invalidate();
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    expect(directory.calls).toHaveLength(3);
  });

  it('does not keep a read that was under way when the cache was invalidated', async () => {
    const directory = fakeDirectory({ S0ONCALL: ['U0DAVE'] });
    const membership = createGroupMembership({ fetchMembers: directory.fetchMembers, now: clock().now });
    const release = directory.hold();
    const stale = membership.groupsOf('U0DAVE', ['S0ONCALL']);
    await Promise.resolve();
    membership.invalidate();
    release();
    await stale;
    await membership.groupsOf('U0DAVE', ['S0ONCALL']);
    expect(directory.calls).toHaveLength(2);
  });
});

describe('groupIdsIn', () => {
  it('lists the user-group ids a policy mentions, once each', () => {
    const parsed = parsePolicy(
      EXAMPLE_POLICY_YAML.replace('[U0BOB, U0CAROL]', '[U0BOB, S0ONCALL, S0LEADS]'),
      'p.yml',
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(groupIdsIn(parsed.policy)).toEqual(['S0ONCALL', 'S0LEADS']);
  });
});
