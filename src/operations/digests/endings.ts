/**
 * Every ending of a digest goes the same way, whoever ended it: an audit row records it, a note
 * in its channel says why (when the bot can still post there), and its owner is told by DM when
 * the ending was not their own Stop.
 */
import { md } from '../../reply/markup.js';
import type { AuditLog } from '../../state/audit.js';
import type { Digest, DigestEndReason, DigestStore } from '../../state/digests.js';
import type { Logger } from '../../telemetry/log.js';
import type { Messenger } from '../engine/ports.js';
import { describeDigest, endedDirect, endedNote, endingWords, zoneWords } from './render.js';

export interface DigestEndingDeps {
  store: DigestStore;
  audit: AuditLog;
  logger: Logger;
  messenger: Messenger | undefined;
  now: () => number;
}

/**
 * Ends a running digest and says so; the digest as ended, or null when it had already ended.
 * `why` replaces the reason's own words in the owner's DM (the channel the bot cannot post in, named).
 */
export async function endDigest(
  deps: DigestEndingDeps,
  digest: Pick<Digest, 'id'>,
  reason: DigestEndReason,
  by: string | null,
  why?: string,
): Promise<Digest | null> {
  const ended = await deps.store.end(digest.id, reason, by, deps.now());
  if (!ended) return null;
  await deps.audit.append({
    userId: by ?? ended.owner,
    channelId: ended.channelId,
    operation: 'digest.set',
    target: String(ended.zoneId),
    params: { digest: ended.id, kind: ended.kind, reason },
    outcome: 'ended',
    approvalId: ended.approvalId,
    correlationId: ended.id,
    detail: `digest ${ended.id} of ${zoneWords(ended)} ended: ${reason}`,
  });
  deps.logger.info('digest ended', { digest: ended.id, reason });
  const { messenger } = deps;
  if (!messenger) return ended;
  // Where the bot can no longer post, only the owner hears of it.
  if (reason !== 'channel')
    await messenger.postToChannel(ended.channelId, endedNote(ended)).catch((error: unknown) => {
      deps.logger.warn('the end of a digest could not be posted', { digest: ended.id, error });
    });
  if (reason !== 'stopped' || (by !== null && by !== ended.owner))
    await messenger
      .sendDirect(ended.owner, endedDirect(ended, why === undefined ? endingWords(ended) : md`${why}`))
      .catch((error: unknown) => {
        deps.logger.warn('the end of a digest could not be sent to its owner', {
          digest: ended.id,
          what: describeDigest(ended),
          error,
        });
      });
  return ended;
}
