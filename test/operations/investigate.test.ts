import { describe, expect, it } from 'vitest';
import {
  findAlertHints,
  MAX_IDS,
  MAX_SCANNED,
  suggestedWindow,
} from '../../src/operations/logs/alert-hints.js';
import { investigateCommandForm, investigateForm } from '../../src/operations/logs/investigate.js';
import { messageText } from '../../src/slack/message-text.js';
import { DEFAULT_INSTANT } from '../support/clock.js';

const now = Date.parse(DEFAULT_INSTANT); // 2026-11-21 14:00 UTC
const at = (iso: string) => Date.parse(iso);

describe('finding zone ids and times in an alert', () => {
  it('finds a pull zone however the alert spells it', () => {
    for (const text of [
      'High 5xx rate on pull zone 308006',
      'pullzone=308006 status=firing',
      'labels: pull_zone_id: 308006',
      'PullZoneId 308006',
      'pull-zone #308006 is failing',
    ])
      expect(findAlertHints(text, now), text).toMatchObject({ pullZoneIds: [308006], shieldZoneIds: [] });
  });

  it('reads a bare "zone N" and "shield zone N" as a Shield zone, never the pull zone’s number', () => {
    expect(findAlertHints('WAF blocks spiking in zone 5101', now).shieldZoneIds).toEqual([5101]);
    expect(findAlertHints('shield_zone_id=5102', now).shieldZoneIds).toEqual([5102]);
    expect(findAlertHints('pull zone 308006 and shield zone 5101', now)).toMatchObject({
      pullZoneIds: [308006],
      shieldZoneIds: [5101],
    });
  });

  it('keeps several ids once each, in the order found, at most a few', () => {
    const hints = findAlertHints('pull zone 1, pull zone 2, pullzone=1, pull zone 3, zone 9, zone 9', now);
    expect(hints.pullZoneIds).toEqual([1, 2, 3]);
    expect(hints.shieldZoneIds).toEqual([9]);
    const many = Array.from({ length: 50 }, (_, i) => `pull zone ${i + 1}`).join(' ');
    expect(findAlertHints(many, now).pullZoneIds).toEqual([1, 2, 3, 4, 5].slice(0, MAX_IDS));
  });

  it('finds nothing in a message that names no zone or time', () => {
    const hints = findAlertHints('Deploy finished: 42 files changed in 3.5 s, see zone map', now);
    expect(hints).toEqual({ pullZoneIds: [], shieldZoneIds: [], times: [] });
    expect(suggestedWindow(hints, now)).toEqual({ from: now - 3_600_000, to: now });
  });

  it('reads ISO timestamps with or without a zone, and times of day said to be UTC', () => {
    const hints = findAlertHints(
      'fired 2026-11-21T13:45:00Z, first seen 2026-11-21 13:30 UTC, peak 2026-11-21T14:40:00+01:00, resolved 13:55 UTC',
      now,
    );
    expect(hints.times).toEqual([
      at('2026-11-21T13:45:00Z'),
      at('2026-11-21T13:30:00Z'),
      at('2026-11-21T13:40:00Z'),
      at('2026-11-21T13:55:00Z'),
    ]);
  });

  it('takes a time of day later than now as yesterday’s, and leaves out times the platform no longer has', () => {
    expect(findAlertHints('since 23:10 UTC', now).times).toEqual([at('2026-11-20T23:10:00Z')]);
    expect(findAlertHints('on 2026-11-01T10:00:00Z and at 2026-11-22T10:00:00Z', now).times).toEqual([]);
    expect(findAlertHints('at 14:05 local time and 25:99 UTC', now).times).toEqual([]);
  });

  it('suggests half an hour either side of the times found, never past now', () => {
    const hints = findAlertHints('from 2026-11-21T13:00:00Z to 2026-11-21T13:50:00Z', now);
    expect(suggestedWindow(hints, now)).toEqual({ from: at('2026-11-21T12:30:00Z'), to: now });
    const one = findAlertHints('at 2026-11-21T12:00:00Z', now);
    expect(suggestedWindow(one, now)).toEqual({
      from: at('2026-11-21T11:30:00Z'),
      to: at('2026-11-21T12:30:00Z'),
    });
  });

  it('treats hostile text as text: mentions, markup and numbers too long to be ids', () => {
    const hints = findAlertHints(
      '<!channel> <@U0BOSS> pull zone <https://evil.example|308006> pull zone 1234567890123456 zone -5 zone 0x10 pull zone 0 zone 000',
      now,
    );
    expect(hints.pullZoneIds).toEqual([]);
    expect(hints.shieldZoneIds).toEqual([]);
    // Up to 15 digits, as commands, forms and pickers read ids.
    expect(findAlertHints('pull zone 123456789012345 and shield zone 12345678901', now)).toMatchObject({
      pullZoneIds: [123_456_789_012_345],
      shieldZoneIds: [12_345_678_901],
    });
  });

  it('reads only the start of a very long message, with bounded results', () => {
    const filler = 'zone   '.repeat(200_000);
    const text = `pull zone 308006 at 13:30 UTC ${filler} pull zone 410112`;
    expect(text.length).toBeGreaterThan(MAX_SCANNED * 100);
    const hints = findAlertHints(text, now);
    expect(hints.pullZoneIds).toEqual([308006]);
    expect(hints.times).toEqual([at('2026-11-21T13:30:00Z')]);
    const timesEverywhere = Array.from(
      { length: 5_000 },
      (_, i) => `${String(i % 24).padStart(2, '0')}:00 UTC`,
    );
    expect(findAlertHints(timesEverywhere.join(' '), now).times.length).toBeLessThanOrEqual(10);
  });
});

describe('the Investigate form', () => {
  it('is pre-filled with the first pull zone and a window around the alert’s times', () => {
    const form = investigateForm(findAlertHints('pull zone 308006 failing since 13:30 UTC', now), now);
    const field = (id: string) => form.fields.find((f) => f.id === id);
    expect(field('what')).toMatchObject({ initial: 'logs' });
    expect(field('zone')).toMatchObject({
      kind: 'zone',
      zones: 'any',
      initial: { kind: 'pullzone', id: 308006 },
    });
    expect(field('from')).toMatchObject({ initial: at('2026-11-21T13:00:00Z') });
    expect(field('to')).toMatchObject({ initial: now });
    expect(form.intro).toContain('pull zone 308006');
  });

  it('chooses the Shield export when the alert names only a Shield zone, and says when it names nothing', () => {
    const shield = investigateForm(findAlertHints('WAF: zone 5101 blocking', now), now);
    expect(shield.fields.find((f) => f.id === 'what')).toMatchObject({ initial: 'shield' });
    expect(shield.fields.find((f) => f.id === 'zone')).toMatchObject({
      kind: 'zone',
      initial: { kind: 'shieldzone', id: 5101 },
    });
    const empty = investigateForm(findAlertHints('something is wrong', now), now);
    expect(empty.intro).toContain('names no zone id');
    expect(empty.intro).toContain('the last hour');
    expect(empty.fields.find((f) => f.id === 'zone')).not.toHaveProperty('initial');
  });

  it('stands for the command line a person would type', () => {
    const values = { what: 'shield', zone: ' 5101 ', from: String(now - 3_600_000), to: String(now) };
    expect(investigateCommandForm.read(values)).toEqual({
      command: 'shield export 5101 --from 2026-11-21T13:00:00.000Z --to 2026-11-21T14:00:00.000Z',
    });
    expect(investigateCommandForm.read({ ...values, what: 'logs' })).toMatchObject({
      command: expect.stringMatching(/^logs 5101 --from /),
    });
    expect(investigateCommandForm.read({ ...values, zone: 'www' })).toEqual({
      errors: { zone: 'Type the Shield zone id as a number, e.g. 5101.' },
    });
    expect(investigateCommandForm.read({ ...values, zone: '0' })).toEqual({
      errors: { zone: 'Type the Shield zone id as a number, e.g. 5101.' },
    });
    expect(investigateCommandForm.read({ ...values, to: undefined })).toEqual({
      errors: { to: 'Pick the end of the window.' },
    });
  });
});

describe('the zone the Investigate form’s picker chose', () => {
  const window = { from: String(now - 3_600_000), to: String(now) };

  it('runs on the kind of zone chosen', () => {
    expect(investigateCommandForm.read({ ...window, what: 'logs', zone: 'pullzone:308006' })).toMatchObject({
      command: expect.stringMatching(/^logs 308006 --from /),
    });
    expect(investigateCommandForm.read({ ...window, what: 'shield', zone: 'shieldzone:5101' })).toMatchObject(
      {
        command: expect.stringMatching(/^shield export 5101 --from /),
      },
    );
  });

  it('refuses a zone of the other kind, on the zone field, instead of reading its id as the other kind', () => {
    expect(investigateCommandForm.read({ ...window, what: 'logs', zone: 'shieldzone:5101' })).toEqual({
      errors: {
        zone: 'Shield zone 5101 has no origin error logs: pick a pull zone, or run the Shield event export.',
      },
    });
    expect(investigateCommandForm.read({ ...window, what: 'shield', zone: 'pullzone:308006' })).toEqual({
      errors: {
        zone: 'Pull zone 308006 has no Shield event export: pick a Shield zone, or run the origin error logs.',
      },
    });
  });
});

describe('the text of a message an alerting tool posted', () => {
  it('includes attachments and blocks, bounded', () => {
    const text = messageText(
      {
        text: 'Alert',
        attachments: [{ title: 'pull zone 308006', fields: [{ title: 'since', value: '13:30 UTC' }] }],
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'zone 5101' } }],
      },
      MAX_SCANNED,
    );
    expect(findAlertHints(text, now)).toMatchObject({ pullZoneIds: [308006], shieldZoneIds: [5101] });
    expect(messageText({ text: 'x'.repeat(100_000) }, 50).length).toBeLessThanOrEqual(50);
    expect(messageText({ text: 42, attachments: 'nope' }, 50)).toBe('');
  });
});
