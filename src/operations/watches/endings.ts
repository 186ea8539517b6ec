/**
 * Every ending of a watch goes the same way, whoever ended it: the watch message shows it ended,
 * a note under it says why, and an audit row records it.
 */

import type { AuditLog } from '../../state/audit.js';
import type { Logger } from '../../telemetry/log.js';
import type { Watch } from '../../watches/store.js';
import type { Messenger } from '../engine/ports.js';
import { endedNote, watchMessage } from './render.js';

/** The thread a watch's notes and alerts go in: the one it was asked in, or its own message's. */
export const threadOf = (watch: Watch): string | undefined => watch.threadTs ?? watch.messageTs ?? undefined;

export async function announceEnd(
  watch: Watch,
  deps: { messenger: Messenger; audit: AuditLog; logger: Logger; nowMs: number },
): Promise<void> {
  // The watch has ended already: its message and note go out even when its audit row could not
  // be written, and that failure is then the caller's to report.
  const auditFailure = await deps.audit
    .append({
      userId: watch.endedBy ?? watch.owner,
      channelId: watch.channelId,
      operation: 'watch.logs',
      target: String(watch.pullZoneId),
      params: { watch: watch.id, reason: watch.endedReason, counted: watch.progress.total },
      outcome: 'ended',
      approvalId: null,
      correlationId: watch.id,
      detail: `watch ${watch.id} ended: ${watch.endedReason}`,
    })
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  deps.logger.info('watch ended', { watch: watch.id, reason: watch.endedReason });
  try {
    if (watch.messageTs)
      await deps.messenger.update(
        { channelId: watch.channelId, ts: watch.messageTs },
        watchMessage(watch, deps.nowMs),
      );
    await deps.messenger.postToChannel(watch.channelId, endedNote(watch), threadOf(watch));
  } catch (error) {
    deps.logger.warn('the end of a watch could not be posted', { watch: watch.id, error });
  }
  if (auditFailure) throw auditFailure.error;
}
