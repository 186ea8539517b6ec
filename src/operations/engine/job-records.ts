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
  /** Records a job running here. Never throws: a job whose record fails runs all the same, logged. */
  begin(job: Omit<RunningJobRecord, 'runner' | 'progress'>): Promise<void>;
  /** The job's progress message, for whoever closes it. */
  progress(id: string, ref: MessageRef): void;
  end(id: string): Promise<void>;
  /** Renews this replica's leases, then closes the jobs of replicas that stopped; how many it closed. */
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

  /** Appends the closing row of the job's request, unless the request closed already. */
  const closeTrail = async (job: RunningJobRecord) => {
    const rows = await audit.list({ limit: 20, filter: { correlationId: job.correlationId } });
    const newest = rows[0];
    if (!newest || (newest.outcome !== 'started' && newest.outcome !== 'executing')) return;
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
    logger.warn('closing a long job whose process stopped', { job: job.id, runner: job.runner });
    // Each part on its own: a trail that cannot be written still leaves the requester told.
    await quietly('closed in the audit log', job.id, closeTrail(job));
    await quietly('told to its requester', job.id, tell(messenger, job));
  };

  return {
    async begin(job) {
      await quietly('written', job.id, store.begin({ ...job, runner }, now() + leaseMs));
    },
    progress(id, ref) {
      void quietly('given its progress message', id, store.progress(id, ref));
    },
    async end(id) {
      await quietly('removed', id, store.end(id));
    },
    async sweep(messenger) {
      const at = now();
      await store.renew(runner, at + leaseMs);
      const stopped = await store.takeStopped(at, CLOSED_PER_SWEEP);
      for (const job of stopped) await close(messenger, job);
      return stopped.length;
    },
  };
}
