/**
 * Long jobs across replicas: each job running here is recorded in the state database with a lease
 * this replica renews at every sweep. When a replica's process stops mid-job (a crash, a kill),
 * its jobs stop with it, and what they left open would stay open: a progress message with a live
 * Cancel button, an audit trail that ends at `started`. The sweep of any replica, its own once
 * restarted included, takes each such job once its lease has run out and closes it: the progress
 * message says the job stopped and that nothing was posted (the requester hears it by DM where
 * there was none yet), and the audit trail gets its closing row.
 */
import { channelRef, md, mention, nest, trusted } from '../../reply/markup.js';
import type { MessageRef } from '../../reply/model.js';
import { inChannel, type Reply } from '../../reply/model.js';
import type { AuditLog } from '../../state/audit.js';
import type { RunningJobRecord, RunningJobStore } from '../../state/running-jobs.js';
import type { Logger } from '../../telemetry/log.js';
import type { Messenger } from './ports.js';

/** Jobs a sweep closes at most: the next sweep takes the rest. */
const CLOSED_PER_SWEEP = 20;

/** What the audit trail of a stopped job closes with. */
export const STOPPED_DETAIL = 'interrupted: the bot process running it stopped before it finished';

export interface JobRecords {
  /**
   * Records a job running here. Never rejects, and need not be awaited: its record's writes go in
   * order behind it, and a job whose record fails runs all the same, logged.
   */
  begin(job: Omit<RunningJobRecord, 'runner' | 'progress'>): Promise<void>;
  /** The job's progress message, for whoever closes it. */
  progress(id: string, ref: MessageRef): void;
  /** The job ended here; a record that cannot be removed now is removed at a later sweep. Never rejects. */
  end(id: string): Promise<void>;
  /**
   * Renews the leases of the jobs running here, then closes those of replicas that stopped; how
   * many it closed. After a sweep of its own failed, it closes nothing until its sweeps have
   * succeeded for a lease's length: the state database may have been away for every replica, none
   * of which could renew.
   */
  sweep(messenger: Messenger): Promise<number>;
}

export interface JobRecordsOptions {
  store: RunningJobStore;
  audit: AuditLog;
  logger: Logger;
  now: () => number;
  /** This replica (the runtime's instance id). */
  runner: string;
  /** How long a job's record outlives the last renewal: a few sweep intervals. */
  leaseMs: number;
}

/** What the progress message of a stopped job says instead. */
function stoppedReply(job: RunningJobRecord, where: 'here' | 'elsewhere'): Reply {
  const asked = where === 'here' ? trusted('') : md` (asked in ${nest(channelRef(job.channelId))})`;
  const text = md`:warning: *${job.title}*${nest(asked)} stopped: the bot process running it stopped before it finished, so nothing was posted. ${nest(mention(job.userId))}, run the command again to get the answer.`;
  return inChannel(`${job.title} stopped before it finished; run the command again.`, [
    { type: 'text', text },
  ]);
}

export function createJobRecords(options: JobRecordsOptions): JobRecords {
  const { store, audit, logger, now, runner, leaseMs } = options;
  const quietly = (what: string, id: string, work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => logger.warn(`a long job's record could not be ${what}`, { job: id, error }),
    );

  /**
   * Appends the closing row of the job's request; false when the request closed already (the job
   * ended, its answer delivered, and only its record stayed behind).
   */
  const closeTrail = async (job: RunningJobRecord): Promise<boolean> => {
    const rows = await audit.list({ limit: 20, filter: { correlationId: job.correlationId } });
    const newest = rows[0];
    if (!newest || (newest.outcome !== 'started' && newest.outcome !== 'executing')) return false;
    await audit.append({
      userId: newest.userId,
      channelId: newest.channelId,
      operation: newest.operation,
      target: newest.target,
      params: newest.params,
      outcome: 'failed',
      approvalId: newest.approvalId,
      correlationId: job.correlationId,
      detail: STOPPED_DETAIL,
    });
    return true;
  };

  /** Tells the requester, in place of the progress message, or by DM where there is none or it is gone. */
  const tell = async (messenger: Messenger, job: RunningJobRecord) => {
    if (job.progress)
      try {
        await messenger.update(job.progress, stoppedReply(job, 'here'));
        return;
      } catch (error) {
        logger.warn(
          'the progress message of a stopped job could not be updated; telling its requester by DM',
          {
            job: job.id,
            error,
          },
        );
      }
    await messenger.sendDirect(job.userId, stoppedReply(job, 'elsewhere'));
  };

  const close = async (messenger: Messenger, job: RunningJobRecord) => {
    // Unknown when the audit log cannot be read: the requester is told all the same.
    const open = await closeTrail(job).catch((error: unknown) => {
      logger.warn("a stopped long job's audit trail could not be closed", { job: job.id, error });
      return true;
    });
    if (!open) return;
    logger.warn('closed a long job whose process stopped', { job: job.id, runner: job.runner });
    await quietly('told to its requester', job.id, tell(messenger, job));
  };

  /** The jobs running here, recorded; each one's writes, in order. */
  const live = new Map<string, Promise<void>>();
  /** Jobs that ended here whose record could not be removed then: removed at the next sweep. */
  const unremoved = new Set<string>();
  /** Since when this replica's sweeps have all succeeded; undefined right after one failed. */
  let healthySince: number | undefined = Number.NEGATIVE_INFINITY;

  return {
    begin(job) {
      const written = quietly('written', job.id, store.begin({ ...job, runner }, now() + leaseMs));
      live.set(job.id, written);
      return written;
    },
    progress(id, ref) {
      const before = live.get(id);
      if (before)
        live.set(
          id,
          before.then(() => quietly('given its progress message', id, store.progress(id, ref))),
        );
    },
    async end(id) {
      const before = live.get(id) ?? Promise.resolve();
      live.delete(id);
      await before;
      await store.end(id).catch((error: unknown) => {
        unremoved.add(id);
        logger.warn("a long job's record could not be removed; the next sweep removes it", {
          job: id,
          error,
        });
      });
    },
    async sweep(messenger) {
      const at = now();
      let stopped: RunningJobRecord[];
      try {
        // Renewed first: removals that keep failing must not hold up the live jobs' leases.
        await store.renew(runner, [...live.keys()], at + leaseMs);
        for (const id of [...unremoved]) {
          await store.end(id);
          unremoved.delete(id);
        }
        // Read every time, taken or not: a replica with no jobs of its own learns of an outage too.
        stopped = await store.takeStopped(at, CLOSED_PER_SWEEP, { peek: true });
      } catch (error) {
        healthySince = undefined;
        throw error;
      }
      if (healthySince === undefined) healthySince = now();
      if (at - healthySince < leaseMs || stopped.length === 0) return 0;
      stopped = await store.takeStopped(at, CLOSED_PER_SWEEP);
      for (const job of stopped) await close(messenger, job);
      return stopped.length;
    },
  };
}
