/**
 * `/edge shield bot-detection` through the engine: the form, and what the answer to its
 * submission says when the platform leaves out what its schema does not require.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModalValues } from '../../src/reply/form.js';
import type { Recorded } from '../support/engine.js';
import { type EngineTestbed, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.knobs.clear();
});

/** What a user submits after changing a few settings. */
const SUBMITTED: ModalValues = {
  executionMode: '1',
  requestIntegrity: '2',
  ipAddress: '1',
  fingerprint: '3',
  aggression: '2',
  complex: [],
};

/** Opens the form for a zone, submits it, and returns everything recorded after the submission. */
async function submitFor(zoneId: number): Promise<Recorded[]> {
  const form = (await bed.run(`shield bot-detection ${zoneId}`)).find((record) => record.kind === 'form');
  if (form?.kind !== 'form') throw new Error('the command opened no form');
  expect(form.modal.callbackId).toBe('shield.bot-detection:submit');
  const outcome = await bed.submit(form.modal, SUBMITTED);
  if ('errors' in outcome) throw new Error(`the form was refused: ${JSON.stringify(outcome.errors)}`);
  return outcome.records;
}

describe('a Shield envelope whose message is null', () => {
  it('is explained by what its errorKey means', async () => {
    bed.sandbox.knobs.setVendorShapes({ shieldNullMessage: true });
    const said = JSON.stringify(await submitFor(bed.sandbox.ids.basicShieldZone));
    expect(said).toContain(
      'The plan of this Shield zone does not include bot detection; upgrade the zone’s plan to use it. (invalid_plan_type.bot_detection)',
    );
    expect(said).not.toContain('reported a failure');
    expect(bed.sandbox.botDetection(bed.sandbox.ids.basicShieldZone)).toBeUndefined();
  });
});

describe('a bot-detection answer whose configuration leaves its fields out', () => {
  it('reads the missing settings as unknown', async () => {
    bed.sandbox.faults.set('shield.botDetection', {
      status: 200,
      body: {
        error: { statusCode: 200, success: true, message: null, errorKey: null },
        data: { shieldZoneId: 5101 },
      },
      times: 1,
    });
    const said = JSON.stringify(await submitFor(bed.sandbox.ids.shieldZone));
    expect(said).toContain(
      'Now: mode ?, request integrity ?, IP ?, fingerprint ? / aggression ?, complex ?.',
    );
    expect(said).not.toContain('undefined');
  });
});

describe('current settings the platform answers unreadably', () => {
  it('opens the form with defaults, saying why with the correlation id of the warning', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', { malformedJson: true, times: 3 });
    const form = (await bed.run(`shield bot-detection ${bed.sandbox.ids.shieldZone}`)).find(
      (record) => record.kind === 'form',
    );
    bed.sandbox.faults.clear();
    if (form?.kind !== 'form') throw new Error('the command opened no form');
    const said = JSON.stringify(form.modal);
    expect(said).toContain(
      'its current settings could not be read (The platform sent a response that could not be read',
    );
    const correlationId = /correlation id (c-[0-9a-f]{10})/.exec(said)?.[1];
    expect(correlationId).toBeDefined();
    expect(
      bed.logs.filter(
        (line) =>
          line.includes(correlationId!) && line.includes('current bot-detection settings could not be read'),
      ),
    ).toHaveLength(1);
  });
});

describe('current settings the platform does not give in time, or answers at length', () => {
  const intro = async () => {
    const form = (await bed.run(`shield bot-detection ${bed.sandbox.ids.shieldZone}`)).find(
      (record) => record.kind === 'form',
    );
    bed.sandbox.faults.clear();
    if (form?.kind !== 'form') throw new Error('the command opened no form');
    return form.modal.intro ?? '';
  };

  it('says the platform did not answer in time, with the correlation id, not that anything was cancelled', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', { delayMs: 5_000, times: 1 });
    const said = await intro();
    expect(said).toMatch(/did not answer within 1\.5 s; correlation id c-[0-9a-f]{10}/);
    expect(said).not.toContain('cancelled');
  });

  it('quotes at most 1,000 characters of the platform’s words, so the correlation id stays inside Slack’s limit', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', {
      status: 503,
      body: { title: 'x'.repeat(5_000), status: 503, detail: 'y'.repeat(5_000) },
      times: 3,
    });
    const said = await intro();
    expect(said.length).toBeLessThan(3_000);
    expect(said).toContain(`${'y'.repeat(1_000)}…`);
    expect(said).toMatch(/correlation id c-[0-9a-f]{10}/);
  });

  it('says what the platform answered when the time runs out waiting to ask it again', async () => {
    // The platform answers at once, and asks to be tried again after longer than the form waits.
    bed.sandbox.faults.set('shield.botDetection.get', { status: 503, retryAfter: 2, times: 1 });
    const said = await intro();
    expect(said).toMatch(
      /could not be read \(The platform failed \(HTTP 503\)\..*; the form's 1\.5 s ran out before it asked again; correlation id (c-[0-9a-f]{10})\)/,
    );
    expect(said).not.toContain('did not answer');
    // The id finds the warning, and it says what the platform answered.
    const id = /correlation id (c-[0-9a-f]{10})/.exec(said)?.[1];
    expect(bed.logs.some((line) => line.includes(id!) && line.includes('HTTP 503'))).toBe(true);
  });

  it('gives the correlation id with an answer the reader could act on, when the time ran out before a retry', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', { status: 429, retryAfter: 2, times: 1 });
    const said = await intro();
    expect(said).toMatch(
      /rate limiting requests \(HTTP 429\)\. Try again in 2 s; the form's 1\.5 s ran out before it asked again; correlation id c-[0-9a-f]{10}\)/,
    );
  });

  it('counts the platform’s words as Slack writes them: five for each `&`, so the id still fits', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', {
      status: 503,
      body: { status: 503, detail: '&'.repeat(5_000) },
      times: 3,
    });
    const said = await intro();
    expect(said).toContain(`${'&amp;'.repeat(200)}…`);
    expect(said.length).toBeLessThan(3_000);
    expect(said).toMatch(/correlation id c-[0-9a-f]{10}/);
  });
});
