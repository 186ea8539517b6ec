/**
 * A request whose card failed is cancelled, and what it is afterwards decides what the card and
 * the requester are told. The state database is the only stand-in here: it answers, refuses, or
 * commits a cancel and then fails the read that follows, as a flaky server does.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, ApprovalState } from '../../../src/approvals/machine.js';
import { cancelUnposted } from '../../../src/operations/approvals/request.js';
import { memoryLogger } from '../../state/temp-db.js';

const request = { id: 'ap_00000000000000aa' } as ApprovalRequest;
const fails = () => Promise.reject(new Error('disk I/O error'));
const stored = (state: ApprovalState) => () => Promise.resolve({ ...request, state } as ApprovalRequest);

async function fateWith(cancel: () => Promise<boolean>, read: () => Promise<ApprovalRequest | null>) {
  const logger = memoryLogger();
  const fate = await cancelUnposted({ cancelUnposted: cancel, get: read }, logger, request, 'why', 'c-1');
  return { fate, logged: logger.lines.join('\n') };
}

describe('what a request whose card failed is after the cancel', () => {
  it('is cancelled when the cancel lands, and read back when the request had moved on', async () => {
    expect((await fateWith(() => Promise.resolve(true), fails)).fate).toBe('cancelled');
    expect((await fateWith(() => Promise.resolve(false), stored('rejected'))).fate).toBe('decided');
    expect((await fateWith(() => Promise.resolve(false), fails)).fate).toBe('unsure');
  });

  it('is read back when the cancel throws: open, cancelled after all, or decided', async () => {
    expect((await fateWith(fails, stored('pending'))).fate).toBe('open');
    // The cancel committed and only what followed it failed: never told "stays open".
    expect((await fateWith(fails, stored('cancelled'))).fate).toBe('cancelled');
    expect((await fateWith(fails, stored('approved'))).fate).toBe('decided');
    expect((await fateWith(fails, stored('expired'))).fate).toBe('decided');
  });

  it('is unsure when even the read back fails, or finds nothing, and says so in the log', async () => {
    const failed = await fateWith(fails, fails);
    expect(failed.fate).toBe('unsure');
    expect(failed.logged).toContain('could not be cancelled');
    expect((await fateWith(fails, () => Promise.resolve(null))).fate).toBe('unsure');
  });
});
