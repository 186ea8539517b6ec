/**
 * The words people read when the approval service refuses something, written from the codes and
 * facts the state machine and the service return (their tests check those facts).
 */
import { describe, expect, it } from 'vitest';
import { type ApprovalRequest, type DecidedFacts, decideClick } from '../../../src/approvals/machine.js';
import {
  clickRefusalText,
  decidedText,
  formatUtc,
  notRunText,
  openRequestText,
  refusalReply,
} from '../../../src/operations/approvals/refusal-text.js';
import {
  approve,
  CLICK_REFUSAL_CASES,
  clickableRequest,
  NOW,
  storedRequest,
} from '../../approvals/click-refusals.js';

const at = (iso: string) => new Date(`2025-03-01T${iso}:00Z`);

function decided(overrides: Partial<DecidedFacts>): DecidedFacts {
  return {
    state: 'approved',
    approvals: [],
    decidedBy: null,
    decidedAt: null,
    finishedAt: null,
    expiresAt: at('14:30'),
    ...overrides,
  };
}

const request = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest =>
  storedRequest(at('14:00'), overrides);

describe('what a refused click says', () => {
  it.each(CLICK_REFUSAL_CASES)('$name', ({ request: overrides, click, says }) => {
    const decision = decideClick(clickableRequest(overrides), click, NOW);
    if (decision.accepted) throw new Error('the click was accepted');
    expect(clickRefusalText(decision, NOW)).toContain(says);
  });

  it('names the date as well when the decision was on another day', () => {
    const decision = decideClick(
      clickableRequest({
        state: 'rejected',
        decidedBy: 'U0CAROL',
        decidedAt: new Date('2025-02-28T23:59:00Z'),
      }),
      approve('U0BOB'),
      NOW,
    );
    if (decision.accepted) throw new Error('the click was accepted');
    expect(clickRefusalText(decision, NOW)).toContain('rejected by <@U0CAROL> at 2025-02-28 23:59 UTC');
  });

  it('says each refusal in full, with real mentions of the ids the bot stored', () => {
    expect(clickRefusalText({ reason: 'not-requester', requester: 'U0ALICE' }, NOW)).toBe(
      'Only the requester (<@U0ALICE>) can cancel this request.',
    );
    expect(
      clickRefusalText(
        {
          reason: 'not-approver',
          action: 'approve',
          approverRoles: ['leads', 'sre', 'dba'],
          noLongerNamed: false,
        },
        NOW,
      ),
    ).toBe(
      'Only members of leads, sre and dba can approve this request: approvers are those named when this request was made who are still approvers under the policy in force now.',
    );
    expect(
      clickRefusalText(
        { reason: 'not-approver', action: 'reject', approverRoles: [], noLongerNamed: true },
        NOW,
      ),
    ).toBe(
      'You were among the approvers when this request was made, but the policy in force now does not name you, so your click does not count. Only its approvers who are still approvers can reject it.',
    );
    expect(clickRefusalText({ reason: 'duplicate-approval', approvedAt: at('14:02'), missing: 1 }, NOW)).toBe(
      'You already approved this at 14:02 UTC; each approver counts once, and it needs 1 more from someone else.',
    );
    expect(clickRefusalText({ reason: 'not-found' }, NOW)).toBe(
      'There is no such approval request: none was ever made with that id (closed and expired requests are kept). Type /edge approvals --all to see the latest ones.',
    );
  });

  it('escapes a target typed by a person, so it cannot ping or link', () => {
    const text = clickRefusalText(
      { reason: 'confirmation-mismatch', target: '<!channel>', typed: false },
      NOW,
    );
    expect(text).toBe('Type the target id `&lt;!channel&gt;` to approve.');
  });
});

describe('what a late clicker is told about the decision', () => {
  it('who approved, and when (the service’s late approval at 14:02)', () => {
    const text = decidedText(
      decided({
        approvals: [{ userId: 'U0BOB', at: at('14:02') }],
        decidedBy: 'U0BOB',
        decidedAt: at('14:02'),
      }),
      NOW,
    );
    expect(text).toContain('already approved by <@U0BOB> at 14:02 UTC');
    expect(text).toBe('This request was already approved by <@U0BOB> at 14:02 UTC.');
  });

  it('who rejected, and when (the service’s Reject at 14:05)', () => {
    expect(
      decidedText(decided({ state: 'rejected', decidedBy: 'U0CAROL', decidedAt: at('14:05') }), NOW),
    ).toContain('rejected by <@U0CAROL> at 14:05 UTC');
  });

  it('that the requester cancelled it', () => {
    expect(
      decidedText(decided({ state: 'cancelled', decidedBy: 'U0ALICE', decidedAt: at('14:00') }), NOW),
    ).toContain('cancelled by the requester');
  });

  it('when it expired (the sweep closed it at 14:30)', () => {
    expect(decidedText(decided({ state: 'expired', expiresAt: at('14:30') }), NOW)).toContain(
      'already expired at 14:30 UTC',
    );
  });

  it('an approval after expiry is told when it expired', () => {
    expect(clickRefusalText({ reason: 'expired', expiresAt: at('14:30') }, NOW)).toContain(
      'expired at 14:30 UTC',
    );
  });

  it('that nobody has decided yet', () => {
    expect(decidedText(decided({ state: 'pending' }), NOW)).toBe(
      'This request is still waiting for approval.',
    );
  });
});

describe('what an approver is told when the approved request did not run here', () => {
  it('a request recovery marked unknown says to check the platform', () => {
    const unknown = request({
      state: 'unknown',
      approvals: [{ userId: 'U0BOB', at: at('14:02') }],
      decidedBy: 'U0BOB',
      decidedAt: at('14:02'),
    });
    expect(notRunText({ reason: 'not-approved', request: unknown }, NOW)).toContain('check the platform');
  });

  it('another replica running it is named with a real mention of who approved', () => {
    const running = request({
      state: 'executing',
      approvals: [{ userId: 'U0BOB', at: at('14:02') }],
      decidedBy: 'U0BOB',
      decidedAt: at('14:02'),
    });
    expect(notRunText({ reason: 'not-approved', request: running }, NOW)).toBe(
      'This request was already approved by <@U0BOB> at 14:02 UTC; it is running now.',
    );
  });

  it('says why it did not run when its parameters or the audit log failed', () => {
    expect(notRunText({ reason: 'digest-mismatch' }, NOW)).toBe(
      'This request was not run: its stored parameters no longer match what was approved.',
    );
    expect(notRunText({ reason: 'not-audited' }, NOW)).toBe(
      'This request was not run because the audit log could not be written; ask again later.',
    );
    expect(notRunText({ reason: 'not-found' }, NOW)).toBe(
      'There is no such approval request: none was ever made with that id (closed and expired requests are kept). Type /edge approvals --all to see the latest ones.',
    );
  });
});

describe('a second request for the same operation and target', () => {
  it('is refused naming the open request and who asked for it', () => {
    const existing = request({ id: 'ap_00000000000000aa' });
    const text = openRequestText(existing, NOW);
    expect(text).toContain('ap_00000000000000aa');
    expect(text).toContain('<@U0ALICE>');
    expect(text).toBe(
      'There is already an open request for pullzone.reset-key on `4242`: ap_00000000000000aa, asked by <@U0ALICE> at 14:00 UTC (pending). Decide or cancel that one first.',
    );
  });
});

describe('a refusal as a reply', () => {
  it('shows the sentence after a no-entry sign, and the same words as its notification text', () => {
    const reply = refusalReply(openRequestText(request({ target: 'a&b <!here> @channel' }), NOW));
    expect(reply.visibility).toBe('ephemeral');
    expect(reply.blocks[0]).toEqual({
      type: 'text',
      text: ':no_entry: There is already an open request for pullzone.reset-key on `a&amp;b &lt;!here&gt; @\u2060channel`: ap_0123456789abcdef, asked by <@U0ALICE> at 14:00 UTC (pending). Decide or cancel that one first.',
    });
    expect(reply.text).toBe(
      'There is already an open request for pullzone.reset-key on `a&b <!here> @channel`: ap_0123456789abcdef, asked by <@U0ALICE> at 14:00 UTC (pending). Decide or cancel that one first.',
    );
  });
});

describe('formatUtc', () => {
  it('shows hours and minutes in UTC, with the date when it is another day', () => {
    expect(formatUtc(new Date('2025-03-01T09:05:59Z'), NOW)).toBe('09:05 UTC');
    expect(formatUtc(new Date('2025-03-02T00:00:00Z'), NOW)).toBe('2025-03-02 00:00 UTC');
  });
});
