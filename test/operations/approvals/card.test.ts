/**
 * What an approver sees is what runs: the card of every gated operation, rendered for Slack as
 * Slack would receive it, together with the file posted with it, holds every parameter in full.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/machine.js';
import { paramsDigest } from '../../../src/approvals/row.js';
import {
  approvalCard,
  approversWhoMayAct,
  BEFORE_UNKNOWN,
  cardFilename,
  DIGEST_SHOWN,
  listedRequest,
  parameterViews,
  requestDetail,
  TIMELINE_SHOWN,
  timingText,
} from '../../../src/operations/approvals/card.js';
import type { GatedOperation } from '../../../src/operations/approvals/gate.js';
import { gatedOperations } from '../../../src/operations/registry.js';
import { renderReply } from '../../../src/slack/blocks/reply.js';
import { canonicalJson, type JsonValue } from '../../../src/state/canonical-json.js';
import { storedRequest } from '../../approvals/click-refusals.js';
import { checkMessageLimits } from '../../support/block-kit.js';
import { PINNED_INSTANTS } from '../../support/clock.js';

const NOW = new Date(PINNED_INSTANTS[0].at);

/** db exec takes statements of up to 10,000 characters; a reset's reason up to 500. */
const STATEMENT_MAX = 10_000;
const REASON_MAX = 500;

const gate = (id: string): GatedOperation => {
  const found = gatedOperations.find((op) => op.id === id);
  if (!found) throw new Error(`no gated operation ${id}`);
  return found;
};

function request(
  operation: string,
  target: string,
  params: Record<string, JsonValue>,
  reason = '',
): ApprovalRequest {
  return storedRequest(NOW, {
    operation,
    target,
    params,
    paramsDigest: paramsDigest(canonicalJson(params)),
    reason,
  });
}

/** Every text of a Slack payload as people read it: entities decoded, invisible guards removed. */
function readable(blocks: unknown): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) {
        if (key === 'text' && typeof child === 'string') texts.push(child);
        else walk(child);
      }
  };
  walk(blocks);
  return texts
    .join('\n')
    .replace(/[\u200b\u2060]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The card as Slack receives it, and the file posted with it. */
function approverSees(req: ApprovalRequest) {
  const { card, file } = approvalCard(req, gate(req.operation), NOW);
  const rendered = renderReply(card);
  return {
    rendered,
    card: readable(rendered.blocks),
    file: file ? String(file.content) : undefined,
    filename: file?.filename,
  };
}

// Characters that Slack markup, escaping or code fences treat specially, and any other text.
const tricky = fc.constantFrom(
  '&',
  '<',
  '>',
  '`',
  '```',
  '*',
  '_',
  '~',
  '\n',
  '@channel',
  '<!here>',
  '|',
  '&amp;',
);
const unit = fc.oneof(
  { weight: 1, arbitrary: tricky },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);
const text = (max: number) =>
  fc
    .oneof(fc.integer({ min: 0, max }), fc.constant(max))
    .chain((length) => fc.string({ unit, minLength: length, maxLength: length }))
    .map((value) => value.replace(/[\u200b\u2060]/g, 'x').slice(0, max));
const databaseId = fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/);
const sensitivity = fc.integer({ min: 0, max: 3 });
const current = fc.option(
  fc.record({
    executionMode: fc.option(fc.integer({ min: 0, max: 1 })),
    requestIntegrity: fc.option(sensitivity),
    ipAddress: fc.option(sensitivity),
    fingerprint: fc.option(sensitivity),
    aggression: fc.option(fc.integer({ min: 0, max: 4 })),
    complexEnabled: fc.option(fc.boolean()),
  }),
);

/** Random requests of every gated operation, with parameters up to their maximum length. */
const gatedRequests: fc.Arbitrary<ApprovalRequest> = fc.oneof(
  fc
    .record({ sql: text(STATEMENT_MAX).filter((sql) => sql.trim().length > 0), database: databaseId })
    .map(({ sql, database }) => request('db.exec', database, { sql, database })),
  fc
    .record({ pullZoneId: fc.integer({ min: 1, max: 2 ** 31 - 1 }), reason: text(REASON_MAX) })
    .map(({ pullZoneId, reason }) =>
      request('pullzone.reset-key', String(pullZoneId), { pullZoneId }, reason),
    ),
  fc
    .record({
      database: databaseId,
      readOnly: fc.boolean(),
      expiresAt: fc.option(fc.constantFrom('2026-12-31T23:59:59.000Z', '2025-03-31T14:10:00.000Z')),
    })
    .map((params) => request('db.tokens.create', params.database, params)),
  fc
    .record({ database: databaseId, regenerate: fc.boolean(), ownDatabase: fc.boolean() })
    .map((params) => request('db.tokens.invalidate', params.database, params)),
  fc
    .record({
      shieldZoneId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      executionMode: fc.integer({ min: 0, max: 1 }),
      requestIntegrity: sensitivity,
      ipAddress: sensitivity,
      fingerprint: sensitivity,
      aggression: fc.integer({ min: 0, max: 4 }),
      complexEnabled: fc.boolean(),
      current,
    })
    .map((p) =>
      request('shield.bot-detection', String(p.shieldZoneId), {
        settings: {
          shieldZoneId: p.shieldZoneId,
          executionMode: p.executionMode,
          requestIntegrity: { sensitivity: p.requestIntegrity },
          ipAddress: { sensitivity: p.ipAddress },
          browserFingerprint: {
            sensitivity: p.fingerprint,
            aggression: p.aggression,
            complexEnabled: p.complexEnabled,
          },
        },
        current: p.current,
      }),
    ),
);

const EXPIRY_WORDS: Record<string, string> = {
  '2026-12-31T23:59:59.000Z': '2026-12-31 23:59:59 UTC',
  '2025-03-31T14:10:00.000Z': '2025-03-31 14:10 UTC',
};

/** The string leaves of the parameters: what the operation runs with, as typed. */
function strings(value: JsonValue): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('what an approver sees', () => {
  it('card plus attached file contain every parameter value in full, for random gated requests up to their maximum length', () => {
    fc.assert(
      fc.property(gatedRequests, (req) => {
        const seen = approverSees(req);
        // Slack gets the card within its limits, and nothing of it is cut.
        expect(seen.rendered.overflow).toBeUndefined();
        expect(checkMessageLimits(seen.rendered.blocks, seen.rendered.text)).toEqual([]);
        const all = `${seen.card}\n${seen.file ?? ''}`;
        // An expiry is written as every date is; its words must still name the exact instant.
        const shownAs = (value: string) =>
          Object.hasOwn(EXPIRY_WORDS, value) ? EXPIRY_WORDS[value]! : value;
        const values = [
          req.target,
          req.reason,
          ...strings(req.params).map(shownAs),
          ...gate(req.operation)
            .fields(req.params)
            .flatMap((view) => [view.value, ...(view.before ? [view.before] : [])]),
        ];
        for (const value of values) expect(all).toContain(value);
        // A value only in the file is announced on the card, in bold, with the file's name.
        if (values.some((value) => !seen.card.includes(value))) {
          expect(seen.card).toContain('*Too long to show here: ');
          expect(seen.card).toContain(`in the file ${cardFilename(req)} posted with this card`);
        }
        if (seen.file) expect(seen.file).toContain(req.paramsDigest);
        expect(seen.card).toContain(`parameters sha256 \`${req.paramsDigest.slice(0, 12)}\``);
      }),
      { numRuns: 150 },
    );
  });

  it('/edge approvals and /edge approvals ID show all the card shows of what will run, for random gated requests', () => {
    fc.assert(
      fc.property(gatedRequests, (req) => {
        const op = gate(req.operation);
        const seen = approverSees(req);
        const listed = listedRequest(req, op, 'approval-requests.txt', [], NOW);
        const detail = requestDetail(req, op, [], [], NOW);
        const surfaces = [
          {
            text: readable(renderReply({ visibility: 'ephemeral', text: 'x', blocks: listed.blocks }).blocks),
            file: listed.fileSection ?? '',
          },
          { text: readable(renderReply(detail).blocks), file: String(detail.files?.[0]?.content ?? '') },
        ];
        const values = parameterViews(req, op).flatMap((view) => [
          view.value,
          ...(view.before ? [view.before] : []),
        ]);
        // The card's warnings: the operation's own (No WHERE, the bot's own token) and unknown settings.
        const warnings = seen.card.split('\n').filter((line) => line.startsWith(':warning:'));
        if (op.warning?.(req.params)) expect(warnings).not.toEqual([]);
        for (const { text, file } of surfaces) {
          for (const value of values) expect(`${text}\n${file}`).toContain(value);
          for (const warning of warnings) expect(text).toContain(warning);
          expect(text).toContain(req.paramsDigest.slice(0, DIGEST_SHOWN));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('shows a short statement whole in a code block, with no file', () => {
    const sql = "UPDATE orders SET status = '*paid*' WHERE note = '<!channel> & `x`'";
    const seen = approverSees(request('db.exec', 'db1', { sql, database: 'db1' }));
    expect(seen.card).toContain(`\`\`\`\n${sql}\n\`\`\``);
    expect(seen.file).toBeUndefined();
  });

  it('puts a statement too long for the card whole into the file, and says so in bold with its length', () => {
    const sql = `DELETE FROM orders WHERE id = 7 -- ${'z'.repeat(5_000)}\nOR 1 = 1`;
    const seen = approverSees(request('db.exec', 'db1', { sql, database: 'db1' }));
    expect(seen.card).not.toContain('OR 1 = 1');
    expect(seen.card).toContain(
      `*Too long to show here: Statement (${sql.length.toLocaleString('en-US')} characters). It is in full in the file approval-ap_0123456789abcdef.txt posted with this card; read it before you decide.*`,
    );
    expect(seen.filename).toBe('approval-ap_0123456789abcdef.txt');
    expect(seen.file).toContain(sql);
    expect(seen.file).toContain(canonicalJson({ sql, database: 'db1' }));
  });

  it('marks what a settings change changes, and says in bold when the current settings are unknown', () => {
    const settings = {
      shieldZoneId: 5101,
      executionMode: 0,
      requestIntegrity: { sensitivity: 2 },
      ipAddress: { sensitivity: 1 },
      browserFingerprint: { sensitivity: 2, aggression: 2, complexEnabled: false },
    };
    const known = approverSees(
      request('shield.bot-detection', '5101', {
        settings,
        current: {
          executionMode: 1,
          requestIntegrity: 2,
          ipAddress: 3,
          fingerprint: 2,
          aggression: 2,
          complexEnabled: false,
        },
      }),
    );
    expect(known.card).toContain('*Execution mode (changed)*\nChallenge → LogOnly');
    expect(known.card).toContain('*IP address (changed)*\nHigh → Low');
    expect(known.card).toContain('*Request integrity*\nMedium (unchanged)');
    expect(known.card).not.toContain(BEFORE_UNKNOWN);
    const unknown = approverSees(request('shield.bot-detection', '5101', { settings, current: null }));
    expect(unknown.card).toContain(`*${BEFORE_UNKNOWN}.*`);
    expect(unknown.card).toContain('*Execution mode*\nLogOnly');
  });

  it('lists a request under the same rule: short values shown, long ones announced and put in the file', () => {
    const sql = `UPDATE t SET a = 1 -- ${'q'.repeat(400)}`;
    const req = request('db.exec', 'db1', { sql, database: 'db1' });
    const listed = listedRequest(req, gate('db.exec'), 'approval-requests.txt', [], NOW);
    const shown = readable(renderReply({ visibility: 'ephemeral', text: 'x', blocks: listed.blocks }).blocks);
    expect(shown).toContain('Run a write statement on database db1');
    expect(shown).toContain('Database: db1');
    expect(shown).toContain(
      `*Too long to show here: Statement (${sql.length} characters). It is in full in the file approval-requests.txt sent with this list`,
    );
    expect(listed.fileSection).toContain(sql);
    const short = listedRequest(
      request('db.exec', 'db1', { sql: 'DELETE FROM t WHERE id = 1', database: 'db1' }),
      gate('db.exec'),
      'approval-requests.txt',
      [],
      NOW,
    );
    expect(readable(short.blocks)).toContain('DELETE FROM t WHERE id = 1');
    expect(short.fileSection).toBeUndefined();
  });
});

describe('one request whole (/edge approvals ID)', () => {
  const row = (minute: number, outcome: string, detail: string | null = null) => ({
    time: new Date(NOW.getTime() + minute * 60_000).toISOString(),
    userId: 'U0ALICE',
    outcome,
    detail,
  });

  it('shows every parameter in full or puts it whole in the file and says so, with the full digest', () => {
    const sql = `UPDATE t SET a = 1 -- ${'q'.repeat(4_000)}`;
    const req = request('db.exec', 'db1', { sql, database: 'db1' });
    const detail = requestDetail(req, gate('db.exec'), [row(0, 'approval-requested')], [], NOW);
    const rendered = renderReply(detail);
    expect(checkMessageLimits(rendered.blocks, rendered.text)).toEqual([]);
    const shown = readable(detail);
    expect(shown).toContain(
      `Too long to show here: Statement (${sql.length.toLocaleString('en-US')} characters)`,
    );
    expect(shown).toContain(`approval-${req.id}.txt attached to this answer`);
    expect(shown).toContain(req.paramsDigest);
    expect(detail.files?.[0]?.content).toContain(sql);
  });

  it('bounds the timeline: the latest rows, and where to read the earlier ones', () => {
    const req = request('db.exec', 'db1', { sql: 'DELETE FROM t WHERE id = 1', database: 'db1' });
    const rows = Array.from({ length: TIMELINE_SHOWN + 5 }, (_, i) => row(i, `step-${i}`, 'x'.repeat(1_000)));
    const detail = requestDetail(req, gate('db.exec'), rows, [], NOW);
    const rendered = renderReply(detail);
    expect(checkMessageLimits(rendered.blocks, rendered.text)).toEqual([]);
    const shown = readable(detail);
    expect(shown).toContain(
      `The latest ${TIMELINE_SHOWN} rows; the earlier ones: /edge audit --request ${req.id}`,
    );
    expect(shown).not.toContain('*step-4*');
    expect(shown).toContain(`*step-${TIMELINE_SHOWN + 4}*`);
    expect(detail.files).toBeUndefined();
  });
});

describe('the card as people read it', () => {
  const reset = (overrides: Partial<ApprovalRequest> = {}) =>
    storedRequest(NOW, {
      operation: 'pullzone.reset-key',
      target: '308006',
      params: { pullZoneId: 308006 },
      approverIds: ['U0ALICE', 'U0LEAD', 'U0LEAD2', 'S0LEADS'],
      approverRoles: ['leads'],
      ...overrides,
    });
  const header = (req: ApprovalRequest) =>
    approvalCard(req, gate(req.operation), NOW).card.blocks.find((block) => block.type === 'header');

  it('names who may still act: not the requester, not who already approved; groups as Slack links them', () => {
    expect(approversWhoMayAct(reset())).toBe(
      '<@U0LEAD>, <@U0LEAD2> or <!subteam^S0LEADS> (leads), 1 of them',
    );
    expect(approversWhoMayAct(reset({ required: 2, approvals: [{ userId: 'U0LEAD', at: NOW }] }))).toBe(
      '<@U0LEAD2> or <!subteam^S0LEADS> (leads), 1 of them',
    );
    expect(approversWhoMayAct(reset({ required: 2, approverIds: ['U0LEAD', 'U0LEAD2'] }))).toBe(
      '<@U0LEAD> or <@U0LEAD2> (leads), 2 of them',
    );
    expect(approversWhoMayAct(reset({ approverIds: ['*'], approverRoles: ['everyone'] }))).toBe(
      'anyone here (everyone), 1 of them',
    );
  });

  it('gives the age and the expiry in one line while pending', () => {
    const asked = new Date(NOW.getTime() - 2 * 60_000);
    const req = reset({ createdAt: asked, expiresAt: new Date(asked.getTime() + 30 * 60_000) });
    const clock = req.expiresAt.toISOString().slice(11, 16);
    expect(timingText(req, NOW)).toBe(`asked 2 min ago · expires in 28 min, ${clock} UTC`);
  });

  it('heads the card with what will happen while open, and with the outcome once it ended', () => {
    expect(header(reset())).toEqual({
      type: 'header',
      text: 'Reset the token-authentication key of pull zone 308006',
    });
    expect(header(reset({ state: 'succeeded' }))?.text).toBe('✓ Key reset for pull zone 308006');
    expect(header(reset({ state: 'failed' }))?.text).toBe('✗ Failed');
    expect(header(reset({ state: 'rejected' }))?.text).toBe('⛔ Rejected');
    expect(header(reset({ state: 'expired' }))?.text).toBe('⏰ Expired unanswered');
    expect(header(reset({ state: 'cancelled' }))?.text).toBe('✖ Cancelled');
    // An operation without a past-tense line says "Done:" and what it did.
    const token = request('db.tokens.create', 'db1', { database: 'db1', readOnly: true, expiresAt: null });
    expect(header({ ...token, state: 'succeeded' })?.text).toBe(
      `✓ Done: ${gate('db.tokens.create').describe(token.params)}`,
    );
  });

  it('puts the rejecter and the reason, escaped, in the first line under the header', () => {
    const card = approverSees(
      reset({
        state: 'rejected',
        decidedBy: 'U0LEAD',
        decidedAt: NOW,
        decisionReason: 'not during <!here> *freeze*',
      }),
    ).card;
    expect(card).toContain('Rejected by <@U0LEAD>: not during <!here> *freeze*');
    expect(
      JSON.stringify(
        renderReply(
          approvalCard(
            reset({ state: 'rejected', decidedBy: 'U0LEAD', decisionReason: '<!here>' }),
            gate('pullzone.reset-key'),
            NOW,
          ).card,
        ).blocks,
      ),
    ).not.toContain('<!here>');
  });
});

describe('a change described at more length than a header holds', () => {
  it('is also shown whole in bold under the header', () => {
    const database = 'd'.repeat(128);
    const req = request('db.exec', database, { sql: 'DELETE FROM t WHERE id = 1', database });
    const what = gate('db.exec').describe(req.params);
    expect(what.length).toBeGreaterThan(150);
    expect(approverSees(req).card).toContain(`*${what}*`);
  });
});
