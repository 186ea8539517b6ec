/**
 * One pass over the due watches: those that may no longer run are ended, saying why; the rest
 * are leased and polled, one download per pull zone.
 */
import type { WatchHead } from '../../../watches/store.js';
import { endWatch } from './announce.js';
import { takeLeases } from './lease.js';
import { pollZone } from './poll-zone.js';
import type { PollerState } from './state.js';

/** How many intervals a poll's download may take before it is stopped. */
const DEADLINE_INTERVALS = 2;

/** Whether a due watch goes on; one that may no longer run is ended here, saying why. */
async function goesOn(state: PollerState, watch: WatchHead, nowMs: number): Promise<boolean> {
  if (nowMs >= watch.endsAt) {
    await endWatch(state, watch, 'finished');
    return false;
  }
  // Its replica died between storing it and posting its message: nobody saw it start.
  if (!watch.messageTs) {
    await endWatch(state, watch, 'stopped');
    return false;
  }
  const decision = await state.authorizer.decide('watch.logs', {
    userId: watch.owner,
    channelId: watch.channelId,
  });
  // Run only as approved: a rule that came after the watch started stops it, saying why.
  if (decision.allowed && decision.approval && watch.approvalId === null) {
    await endWatch(state, watch, 'approval');
    return false;
  }
  if (!decision.allowed) {
    // A group Slack did not answer for may be the only reason: no ending on a guess.
    const unsure = decision.denial.code === 'not-in-role' && decision.denial.unread.length > 0;
    if (!unsure) {
      await endWatch(state, watch, 'policy');
      return false;
    }
    state.logger.warn('the owner of a watch could not be checked against the policy; it goes on', {
      watch: watch.id,
    });
  }
  return true;
}

/** The due watches that go on, by pull zone; the others are ended here. */
async function dueByZone(state: PollerState, nowMs: number): Promise<Map<number, WatchHead[]>> {
  const { store, instanceId, logger } = state;
  const due = new Map<number, WatchHead[]>();
  for (const watch of await store.due(nowMs, instanceId)) {
    // Stopping: each end below may wait on a locked database.
    if (state.closed) break;
    try {
      if (await goesOn(state, watch, nowMs))
        due.set(watch.pullZoneId, [...(due.get(watch.pullZoneId) ?? []), watch]);
    } catch (error) {
      // Its end could not be written (the state database) or its owner not checked: the next
      // pass tries again, and the other watches go on now.
      logger.warn('a due watch could not be checked or ended', { watch: watch.id, error });
    }
  }
  return due;
}

export async function pass(state: PollerState): Promise<void> {
  if (state.closed) return;
  const { now } = state;
  const due = await dueByZone(state, now());
  for (const [pullZoneId, heads] of due) {
    if (state.closed) break;
    // Leased just before the download; the download renews the leases while it runs.
    const startedAt = now();
    const deadline = startedAt + DEADLINE_INTERVALS * Math.min(...heads.map((head) => head.everyMs));
    // Each watch's lease and save fail on their own (lease.ts, poll-zone.ts): the zone goes on.
    const watches = await takeLeases(state, heads, startedAt);
    if (watches.length > 0) await pollZone(state, pullZoneId, watches, startedAt, deadline);
  }
  state.metrics.setRunningWatches(await state.store.countRunning());
}
