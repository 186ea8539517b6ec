/**
 * Which Slack user groups a user belongs to, for roles that list group ids (S…). Member lists are
 * read per group (the Slack adapter passes a fetcher backed by `usergroups.users.list`) and cached
 * for at most five minutes (PRODUCT §3), so a removal from a group takes effect within that time.
 */

import type { Logger } from '../telemetry/log.js';
import type { Clock } from '../time/clock.js';
import type { Policy } from './schema.js';

/** PRODUCT §3: membership is cached for at most 5 minutes, whatever the caller asks for. */
export const MAX_GROUP_CACHE_MS = 5 * 60_000;

export interface GroupMembershipOptions {
  fetchMembers: (groupId: string) => Promise<readonly string[]>;
  ttlMs?: number;
  now: Clock;
  logger?: Logger;
}

export interface GroupLookup {
  /** The groups (among those asked about) that the user is in. */
  groups: Set<string>;
  /** Groups whose members could not be read; the user is treated as not in them. */
  unresolved: Set<string>;
}

export interface GroupMembership {
  /** The groups among `groupIds` that the user is in; a group that cannot be read counts as not. */
  groupsOf(userId: string, groupIds: Iterable<string>): Promise<Set<string>>;
  /** Like groupsOf, and also says which groups could not be read, so a denial can say so. */
  lookup(userId: string, groupIds: Iterable<string>): Promise<GroupLookup>;
  /** The members of each group that could be read (cached like lookups); unreadable ones are left out. */
  membersOf(groupIds: Iterable<string>): Promise<Map<string, ReadonlySet<string>>>;
  /** Forgets one group's members (e.g. on a `subteam_members_changed` event), or all of them. */
  invalidate(groupId?: string): void;
}

const groupIdsByPolicy = new WeakMap<Policy, string[]>();

/** Every user-group id a policy mentions: what the caller should pass to groupsOf(). */
export function groupIdsIn(policy: Policy): string[] {
  // Asked on every access decision; a policy object never changes (a reload makes a new one).
  let ids = groupIdsByPolicy.get(policy);
  if (!ids) {
    ids = [...new Set(Object.values(policy.roles).flat())].filter((id) => id.startsWith('S'));
    groupIdsByPolicy.set(policy, ids);
  }
  return ids;
}

interface CachedMembers {
  members: ReadonlySet<string>;
  fetchedAt: number;
}

/**
 * A failed read is not cached and not replaced by an older list: the user is treated as not in
 * the group (failing closed, since a stale list could keep someone's access after removal), the
 * failure is logged, and the next lookup tries again.
 */
export function createGroupMembership(options: GroupMembershipOptions): GroupMembership {
  const ttlMs = Math.max(0, Math.min(options.ttlMs ?? MAX_GROUP_CACHE_MS, MAX_GROUP_CACHE_MS));
  const { now } = options;
  const cache = new Map<string, CachedMembers>();
  const inFlight = new Map<string, Promise<ReadonlySet<string>>>();
  // Bumped by invalidate() so that a read started before it cannot refill the cache afterwards.
  let generation = 0;

  const membersOf = (groupId: string): Promise<ReadonlySet<string>> => {
    const cached = cache.get(groupId);
    if (cached && now() - cached.fetchedAt < ttlMs) return Promise.resolve(cached.members);
    const pending = inFlight.get(groupId);
    if (pending) return pending;

    const startedIn = generation;
    const fetchedAt = now();
    const fetching = Promise.resolve()
      .then(() => options.fetchMembers(groupId))
      .then((list) => {
        const members = new Set(list);
        if (startedIn === generation) cache.set(groupId, { members, fetchedAt });
        return members;
      })
      .finally(() => {
        if (inFlight.get(groupId) === fetching) inFlight.delete(groupId);
      });
    inFlight.set(groupId, fetching);
    return fetching;
  };

  const lookup = async (userId: string, groupIds: Iterable<string>): Promise<GroupLookup> => {
    const ids = [...new Set(groupIds)];
    const results = await Promise.allSettled(ids.map((id) => membersOf(id)));
    const groups = new Set<string>();
    const unresolved = new Set<string>();
    results.forEach((result, i) => {
      const id = ids[i]!;
      if (result.status === 'fulfilled') {
        if (result.value.has(userId)) groups.add(id);
      } else {
        unresolved.add(id);
        options.logger?.warn('could not read user-group members; treating the user as not in the group', {
          groupId: id,
          error: result.reason,
        });
      }
    });
    return { groups, unresolved };
  };

  const members = async (groupIds: Iterable<string>): Promise<Map<string, ReadonlySet<string>>> => {
    const ids = [...new Set(groupIds)];
    const results = await Promise.allSettled(ids.map((id) => membersOf(id)));
    const found = new Map<string, ReadonlySet<string>>();
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') found.set(ids[i]!, result.value);
      else
        options.logger?.warn('could not read user-group members', { groupId: ids[i], error: result.reason });
    });
    return found;
  };

  return {
    lookup,
    membersOf: members,
    groupsOf: async (userId, groupIds) => (await lookup(userId, groupIds)).groups,
    invalidate(groupId) {
      generation++;
      if (groupId === undefined) {
        cache.clear();
        inFlight.clear();
      } else {
        cache.delete(groupId);
        inFlight.delete(groupId);
      }
    },
  };
}
