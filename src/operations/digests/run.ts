/**
 * One occurrence of one digest, from its claim to its post: the owner checked against the policy
 * in force, the occurrence claimed in the state database (so one replica posts it), the period
 * read and summarised under the claim's lease, then posted, once, and audited.
 */
import { rm } from 'node:fs/promises';
import { EdgeopsError, UnexpectedError } from '../../errors.js';
import type { Authorizer } from '../../policy/authorizer.js';
import { md } from '../../reply/markup.js';
import { inChannel, type Reply } from '../../reply/model.js';
import type { AuditLog } from '../../state/audit.js';
import type { Digest, DigestClaim, DigestRunEnd, DigestStore } from '../../state/digests.js';
import type { Logger } from '../../telemetry/log.js';
import { newCorrelationId } from '../engine/failure.js';
import type { Messenger } from '../engine/ports.js';
import { goneFromChannel } from '../shared/delivery-errors.js';
import { endDigest } from './endings.js';
import { type DigestMakerDeps, type DigestPost, makeDigestPost } from './make.js';
import {
  describeDigest,
  describePeriod,
  digestContext,
  type OccurrenceNote,
  runOperationOf,
} from './render.js';
import {
  type DigestSchedule,
  latestOccurrence,
  nextOccurrence,
  occurrencesBetween,
  previousOccurrence,
} from './schedule.js';

/** How long a claim holds without being renewed: a replica that died summarising loses it then. */
export const CLAIM_LEASE_MS = 10 * 60_000;
/** Found due later than this after its time, an occurrence says it is late. */
export const LATE_AFTER_MS = 5 * 60_000;

export interface DigestRunnerDeps extends DigestMakerDeps {
  store: DigestStore;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  /** This replica's name on its claims. */
  instanceId: string;
}

/** What every run works with: the dependencies, and what changes as the runner runs. */
export interface DigestRunnerState extends Readonly<DigestRunnerDeps> {
  /** Posts outside any request; set when the runner starts. */
  messenger: Messenger | undefined;
  /** Set by close(): no run starts, and one under way posts nothing. */
  closed: boolean;
  /** The runs under way, stopped by close(). */
  readonly runs: Set<AbortController>;
}

const scheduleOf = (digest: Digest): DigestSchedule => digest;

/** The id of every audit row of an occurrence, on any replica, and of what its post says of a failed comparison day. */
const occurrenceId = (digest: Digest, note: OccurrenceNote): string => `${digest.id}-${note.occurrenceAt}`;

/** Whether the owner may still run what the digest runs there; ends it, saying why, when not. */
async function stillRunnable(state: DigestRunnerState, digest: Digest): Promise<boolean> {
  const decision = await state.authorizer.decide(runOperationOf(digest), {
    userId: digest.owner,
    channelId: digest.channelId,
  });
  if (decision.allowed && decision.approval) {
    await endDigest(state, digest, 'approval', null);
    return false;
  }
  if (decision.allowed) return true;
  // A group Slack did not answer for may be the only reason: no ending on a guess.
  if (decision.denial.code === 'not-in-role' && decision.denial.unread.length > 0) {
    state.logger.warn('the owner of a digest could not be checked against the policy; it runs', {
      digest: digest.id,
    });
    return true;
  }
  await endDigest(state, digest, 'policy', null);
  return false;
}

/** Removes the files a post that was never made would have uploaded. */
async function discard(reply: Reply): Promise<void> {
  const files = [reply, ...(reply.thread ?? [])].flatMap((part) => part.files ?? []);
  await Promise.all(files.map((file) => (file.path ? rm(file.path, { force: true }) : undefined)));
}

/**
 * What a run that could not read its period posts instead: why, in the words a reply would use,
 * and the correlation id of its log line when the cause is not one the reader can fix.
 */
function failurePost(
  digest: Digest,
  note: OccurrenceNote,
  period: string,
  error: unknown,
  correlationId: string,
): DigestPost {
  const why = (error instanceof EdgeopsError ? error : new UnexpectedError(error)).shownWith(correlationId);
  return {
    reply: inChannel(`The digest of ${describeDigest(digest)} could not be made`, [
      digestContext(digest, note),
      { type: 'text', text: md`:warning: The digest ${period} could not be made: ${why}` },
    ]),
    outcome: 'failed',
    count: 0,
    correlationId,
  };
}

/** Keeps the claim's lease while the period is read; aborts the read when another replica has it. */
function leaseKeeper(state: DigestRunnerState, claim: DigestClaim, controller: AbortController) {
  let renewedAt = state.now();
  return () => {
    const at = state.now();
    if (at - renewedAt < CLAIM_LEASE_MS / 3) return;
    renewedAt = at;
    void state.store.renew(claim, at + CLAIM_LEASE_MS).then(
      (held) => {
        if (!held) controller.abort(new Error('another replica took this digest over'));
      },
      (error: unknown) => state.logger.warn('a digest claim could not be renewed', { error }),
    );
  };
}

/** Reads the period under the claim; undefined when the run was stopped (the bot closing, the claim lost). */
async function makePost(
  state: DigestRunnerState,
  digest: Digest,
  claim: DigestClaim,
  note: OccurrenceNote,
): Promise<DigestPost | undefined> {
  const schedule = scheduleOf(digest);
  const period = { startMs: previousOccurrence(schedule, note.occurrenceAt), endMs: note.occurrenceAt };
  const controller = new AbortController();
  state.runs.add(controller);
  const renew = leaseKeeper(state, claim, controller);
  try {
    // What the post shows of a comparison day the platform failed to serve carries the occurrence's id.
    const deps: DigestMakerDeps = { ...state, correlationId: occurrenceId(digest, note) };
    return await makeDigestPost(deps, digest, period, note, { signal: controller.signal, status: renew });
  } catch (error) {
    if (state.closed || controller.signal.aborted) return undefined;
    const correlationId = newCorrelationId();
    state.logger.warn('a digest could not be made', { digest: digest.id, correlationId, error });
    return failurePost(
      digest,
      note,
      describePeriod(period, digest.timeZone, note.postedAt),
      error,
      correlationId,
    );
  } finally {
    state.runs.delete(controller);
  }
}

/** Posts what was made, once: only the claim's holder moves it to posting, and then nobody else may. */
async function post(state: DigestRunnerState, digest: Digest, claim: DigestClaim, made: DigestPost) {
  const { store, messenger, logger } = state;
  if (!messenger || state.closed) {
    await discard(made.reply);
    return undefined;
  }
  const posting = await store.beginPosting(claim).catch(async (error: unknown) => {
    await discard(made.reply);
    throw error;
  });
  if (!posting) {
    await discard(made.reply);
    logger.info('a digest was not posted: it was stopped meanwhile, or another replica holds it', {
      digest: digest.id,
    });
    return 'dropped' as const;
  }
  try {
    await messenger.postToChannel(digest.channelId, made.reply);
    return made.outcome;
  } catch (error) {
    logger.warn('a digest could not be posted', {
      digest: digest.id,
      correlationId: made.correlationId,
      error,
    });
    const gone = goneFromChannel(error);
    // The bot left, the channel was archived: nobody will read it there, its owner is told.
    if (gone) await endDigest(state, digest, 'channel', null, gone);
    return 'failed' as const;
  }
}

async function audit(
  state: DigestRunnerState,
  digest: Digest,
  note: OccurrenceNote,
  end: DigestRunEnd,
  made: DigestPost,
) {
  await state.audit.append({
    userId: digest.owner,
    channelId: digest.channelId,
    operation: 'digest.set',
    target: String(digest.zoneId),
    params: {
      digest: digest.id,
      kind: digest.kind,
      occurrence: new Date(note.occurrenceAt).toISOString(),
      late: note.late,
      missed: note.missed,
      count: made.count,
    },
    outcome: end,
    approvalId: digest.approvalId,
    // One id for every row of an occurrence, on any replica; a failure's own id is in the detail.
    correlationId: occurrenceId(digest, note),
    detail: `digest ${digest.id} ran for ${new Date(note.occurrenceAt).toISOString()}: ${end}${made.correlationId ? ` (correlation id ${made.correlationId})` : ''}`,
  });
}

/**
 * Runs the digest's latest occurrence that has come, if this replica claims it. `foundAt`: when
 * the runner found it due; found more than LATE_AFTER_MS after its time, it says it is late.
 */
export async function runOccurrence(state: DigestRunnerState, due: Digest, foundAt: number): Promise<void> {
  const { store, now, instanceId } = state;
  const schedule = scheduleOf(due);
  const startedAt = now();
  // After downtime only the latest occurrence is posted, late; the ones before it are skipped.
  const occurrenceAt = latestOccurrence(schedule, startedAt);
  if (occurrenceAt < due.nextRunAt) return;
  const nextAt = nextOccurrence(schedule, occurrenceAt);
  const claim: DigestClaim = { digestId: due.id, occurrenceAt, runner: instanceId };
  if (!(await store.claim(claim, startedAt, startedAt + CLAIM_LEASE_MS))) {
    // Another replica has it; once it has got past summarising, this digest moves on here too.
    const other = await store.runState(due.id, occurrenceAt);
    if (other !== null && other !== 'running') await store.advance(due.id, nextAt);
    return;
  }
  // Stopped, or no longer the owner's to run, since it was found due: the occurrence ends unposted.
  const digest = await store.get(due.id);
  if (digest?.state !== 'running' || !(await stillRunnable(state, digest))) {
    await store.finish(claim, 'failed', now(), nextAt);
    return;
  }
  const note: OccurrenceNote = {
    occurrenceAt,
    postedAt: startedAt,
    late: foundAt - occurrenceAt > LATE_AFTER_MS,
    missed: occurrencesBetween(schedule, due.nextRunAt, occurrenceAt),
    nextAt,
  };
  const made = await makePost(state, digest, claim, note);
  if (!made) return;
  // Reading a large period takes minutes, in which the policy may have changed: asked again last.
  const runnable = await stillRunnable(state, digest).catch(async (error: unknown) => {
    await discard(made.reply);
    throw error;
  });
  if (!runnable) {
    await discard(made.reply);
    return store.finish(claim, 'failed', now(), nextAt);
  }
  const end = await post(state, digest, claim, made);
  if (!end) return;
  // Stopped while it was summarised: the claim, if still ours, ends unposted, and nothing is audited.
  if (end === 'dropped') return store.finish(claim, 'failed', now(), nextAt);
  await store.finish(claim, end, now(), nextAt);
  await audit(state, digest, note, end, made);
  state.logger.info('digest posted', { digest: digest.id, outcome: end, late: note.late });
}
