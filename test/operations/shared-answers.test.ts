import { describe, expect, it } from 'vitest';
import { createSharedAnswers, type SharedOutcome } from '../../src/operations/engine/shared-answers.js';
import { pinnedClock } from '../support/clock.js';

const posted = async (): Promise<SharedOutcome> => ({ kind: 'posted' });

describe('shared answers', () => {
  it('share one start among the askers of one key within the minute, and start again after it', async () => {
    const clock = pinnedClock();
    const shared = createSharedAnswers({ now: clock });
    let starts = 0;
    const start = async (): Promise<SharedOutcome> => {
      starts++;
      return { kind: 'posted' };
    };
    const first = shared.share('k', 'U1', start);
    const second = shared.share('k', 'U2', start);
    expect(first.first).toBe(true);
    expect(second).toMatchObject({ first: false, starter: 'U1', settled: false });
    await first.outcome;
    expect(shared.share('k', 'U3', start)).toMatchObject({ first: false, settled: true });
    expect(shared.share('other', 'U3', start).first).toBe(true);
    clock.advance(60_000);
    expect(shared.share('k', 'U4', start).first).toBe(true);
    expect(starts).toBe(3);
  });

  it('never holds more than its bound, the oldest dropped first', () => {
    const shared = createSharedAnswers({ now: pinnedClock(), maxEntries: 3 });
    for (let i = 0; i < 10; i++) shared.share(`k${i}`, 'U1', posted);
    expect(shared.size()).toBe(3);
    expect(shared.share('k9', 'U2', posted).first).toBe(false);
    expect(shared.share('k0', 'U2', posted).first).toBe(true);
  });

  it('shares a failure with those who waited for it, but not with later askers', async () => {
    const shared = createSharedAnswers({ now: pinnedClock() });
    const failing = shared.share('k', 'U1', async () => {
      throw new Error('platform down');
    });
    const waiting = shared.share('k', 'U2', posted);
    await expect(failing.outcome).rejects.toThrow('platform down');
    await expect(waiting.outcome).rejects.toThrow('platform down');
    expect(shared.share('k', 'U3', posted).first).toBe(true);
  });

  it('does not share a cancelled answer with later askers', async () => {
    const shared = createSharedAnswers({ now: pinnedClock() });
    await shared.share('k', 'U1', async () => ({ kind: 'cancelled' })).outcome;
    expect(shared.share('k', 'U2', posted).first).toBe(true);
  });
});
