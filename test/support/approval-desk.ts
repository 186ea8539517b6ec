/**
 * The approval gate as people use it through the engine: asking for a change, the card in the
 * approvals channel, the clicks on it and the Reject form, and what each request is now.
 */
import { expect } from 'vitest';
import type { ApprovalState } from '../../src/approvals/machine.js';
import type { Reply } from '../../src/reply/model.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { memoryLogger } from '../state/temp-db.js';
import { answered, type EngineTestbed, formIn, postsIn, type Recorded, wordsOf } from './engine.js';

export type ApprovalAction = 'approve' | 'reject' | 'cancel';

/** The first approval request id in a text. */
export function requestIdIn(text: string): string {
  const id = /ap_[0-9a-f]{16}/.exec(text)?.[0];
  if (!id) throw new Error(`no request id in ${text.slice(0, 200)}`);
  return id;
}

export interface ApprovalDesk {
  /** A pull zone of its own on the platform: one open request per operation and target. */
  freshZone(): number;
  /** Asks for a key reset of `zone` as `userId`; its id and card, and the requester's note checked. */
  requestReset(zone: number, userId?: string): Promise<{ id: string; card: Reply; records: Recorded[] }>;
  stateOf(id: string): Promise<ApprovalState | undefined>;
  /** The card a request posted in the approvals channel, among the records of asking for it. */
  cardIn(records: readonly Recorded[]): Extract<Recorded, { kind: 'post' }>;
  /** What a request's card shows now (its last update, or the post when it was never updated). */
  latestCard(id: string): Promise<Reply | undefined>;
  /** Clicks a button of a request's card as `userId`, in the approvals channel. */
  click(action: ApprovalAction, id: string, userId: string): Promise<Recorded[]>;
  /** Rejects from the card: the click opens the reason form, and the rejection happens on its submit. */
  reject(id: string, userId: string, reason?: string): Promise<Recorded[]>;
  /** Runs the cycle of sweeps two runtimes on one state database make: at once, then `laterMs` later in the other order. */
  sweepOnTwoRuntimes(laterMs: number): Promise<void>;
}

const ZONES = [410112, 410113, 410114];

export function approvalDesk(bed: EngineTestbed, channelId = 'C0APPROVALS'): ApprovalDesk {
  let nextZone = 0;
  const desk: ApprovalDesk = {
    freshZone() {
      const zone = ZONES[nextZone++ % ZONES.length]! + 1_000_000 * Math.floor(nextZone / ZONES.length);
      bed.sandbox.addPullZone(zone);
      return zone;
    },
    async requestReset(zone, userId = 'U0YOU') {
      const records = await bed.run(`pullzone reset-key ${zone} rotated after an incident`, { userId });
      const note = answered(records);
      expect(note).toContain('Approval requested');
      expect(note).toContain('approvals:cancel');
      const card = desk.cardIn(records).reply;
      return { id: requestIdIn(wordsOf(card)), card, records };
    },
    async stateOf(id) {
      return (await bed.runtime.services.approvals.peek(id))?.state;
    },
    cardIn(records) {
      const card = postsIn(records, channelId).find((post) => post.threadTs === undefined);
      if (!card) throw new Error(`no card: ${answered(records).slice(0, 500)}`);
      return card;
    },
    async latestCard(id) {
      const card = (await bed.runtime.services.approvals.peek(id))?.card;
      return card ? bed.board.shown({ channelId: card.channel, ts: card.ts }) : undefined;
    },
    click(action, id, userId) {
      return bed.click({ actionId: `approvals:${action}`, value: id }, { userId, channelId });
    },
    async reject(id, userId, reason = '') {
      const form = formIn(await desk.click('reject', id, userId));
      expect(form.callbackId).toBe('approvals:reject');
      expect(form.privateMetadata).toContain(id);
      const submitted = await bed.submit(form, { reason: reason || undefined }, { userId, channelId });
      if ('errors' in submitted)
        throw new Error(`the reason was refused: ${JSON.stringify(submitted.errors)}`);
      return submitted.records;
    },
    async sweepOnTwoRuntimes(laterMs) {
      const second = await createRuntime({
        config: bed.config,
        platform: bed.config.platform!,
        secrets: bed.runtime.secrets,
        logger: memoryLogger(),
        now: bed.clock,
      });
      try {
        await Promise.all([
          bed.runtime.approvals.sweep(bed.messenger),
          second.approvals.sweep(bed.messenger),
        ]);
        bed.clock.advance(laterMs);
        await second.approvals.sweep(bed.messenger);
        await bed.runtime.approvals.sweep(bed.messenger);
      } finally {
        await second.close();
      }
    },
  };
  return desk;
}
