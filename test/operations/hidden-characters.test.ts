/**
 * Raw text cannot hide what it does: SQL, reasons and every free-text field refuse control
 * characters and the invisible formatting characters that reorder or hide text ("Trojan
 * Source"), naming the character and where it is, before anything is stored or shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHiddenCharacter, hiddenCharacterError } from '../../src/reply/hidden-characters.js';
import {
  type EngineTestbed,
  onlyAnswer,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({
    serviceDatabase: true,
    policyYaml: everyoneMayRun({ gated: ['db.exec', 'pullzone.reset-key'], leads: ['U0LEAD'] }),
  });
});
afterAll(async () => {
  await bed?.close();
});

/** How many approval requests were ever stored. */
async function storedRequests(): Promise<number> {
  const result = await bed.runtime.services.state.client.execute('SELECT count(*) AS n FROM approvals');
  return Number(result.rows[0]?.n);
}

const posted = (records: readonly Recorded[]) => records.filter((record) => record.kind === 'post');

describe('the check for hidden characters', () => {
  it('names the character and its position in characters, counting an emoji as one', () => {
    expect(findHiddenCharacter('ab\u202ecd')).toEqual({
      codePoint: 0x202e,
      label: 'U+202E RIGHT-TO-LEFT OVERRIDE',
      position: 3,
    });
    expect(findHiddenCharacter('😀x\u001b[8m')?.position).toBe(3);
    expect(findHiddenCharacter('\u0085')?.label).toBe('U+0085 NEXT LINE');
    expect(findHiddenCharacter('a\u007f')?.label).toBe('U+007F DELETE');
    expect(findHiddenCharacter('\ufeffSELECT 1')?.label).toBe('U+FEFF ZERO WIDTH NO-BREAK SPACE');
    for (const hidden of ['\u200b', '\u200f', '\u202a', '\u2066', '\u2069', '\u0000', '\u009f', '\r'])
      expect(findHiddenCharacter(`x${hidden}y`)?.position).toBe(2);
  });

  it('lets tab, line feed and a Windows line break through', () => {
    expect(findHiddenCharacter('SELECT 1\tAS a\nFROM t\r\nWHERE 1')).toBeUndefined();
    expect(findHiddenCharacter('naïve café — “quoted” 日本語 😀')).toBeUndefined();
  });

  it('says what to do, starting with what the text is', () => {
    expect(hiddenCharacterError('ok\u200d', 'The reason')).toBe(
      'The reason contains U+200D ZERO WIDTH JOINER at character 3, an invisible formatting character that can make text look different from what it does: delete it (retype that part rather than pasting it) and send again.',
    );
  });
});

describe('raw text with hidden characters is refused', () => {
  it('db query refuses a statement with a right-to-left override before asking the database', async () => {
    const before = bed.sandbox.requests.count('database.pipeline');
    const answer = wordsOf(
      onlyAnswer(await bed.run('db query SELECT id FROM orders WHERE id = 1 \u202e-- OR 1=1')),
    );
    expect(answer).toContain('the statement contains U+202E RIGHT-TO-LEFT OVERRIDE at character 36');
    expect(answer).toContain('delete it');
    expect(bed.sandbox.requests.count('database.pipeline')).toBe(before);
  });

  it('db exec refuses a statement with an ANSI escape, and no request is stored or posted', async () => {
    const stored = await storedRequests();
    const records = await bed.run("db exec UPDATE orders SET status = '\u001b[8mpaid' WHERE id = 1");
    expect(wordsOf(onlyAnswer(records))).toContain('the statement contains U+001B ESCAPE at character 29');
    expect(posted(records)).toEqual([]);
    expect(await storedRequests()).toBe(stored);
  });

  it('a typed command refuses a reason with an isolate in it, and no request is stored', async () => {
    const stored = await storedRequests();
    const records = await bed.run(`pullzone reset-key ${bed.sandbox.ids.pullZone} leaked key \u2066ok\u2069`);
    expect(wordsOf(onlyAnswer(records))).toContain(
      'the command contains U+2066 LEFT-TO-RIGHT ISOLATE at character 38',
    );
    expect(posted(records)).toEqual([]);
    expect(await storedRequests()).toBe(stored);
  });

  it('the Reject form refuses a reason with a right-to-left mark, and the request stays pending', async () => {
    const asked = await bed.run('db exec DELETE FROM orders WHERE id = 4');
    const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(asked))?.[0];
    expect(id).toBeDefined();
    const sent = await bed.submit(
      { callbackId: 'approvals:reject', privateMetadata: id! },
      { reason: 'not now\u200f' },
      { userId: 'U0LEAD', channelId: 'C0APPROVALS' },
    );
    expect(sent).toEqual({
      errors: {
        reason: expect.stringContaining('The reason contains U+200F RIGHT-TO-LEFT MARK at character 8'),
      },
    });
    expect((await bed.runtime.services.approvals.peek(id!))?.state).toBe('pending');
    await bed.click({ actionId: 'approvals:cancel', value: id! });
  });

  it('the new library form refuses a name with a C1 control, on its field', async () => {
    const records = await bed.run('library create Demos');
    const form = records.find((record) => record.kind === 'form');
    if (form?.kind !== 'form') throw new Error(`no form: ${JSON.stringify(records).slice(0, 300)}`);
    const nameField = form.modal.fields[0]!;
    const sent = await bed.submit(form.modal, { [nameField.id]: 'Demos\u009b2J' });
    expect(sent).toMatchObject({
      errors: {
        [nameField.id]: expect.stringContaining(
          'The name contains U+009B CONTROL SEQUENCE INTRODUCER at character 6',
        ),
      },
    });
  });

  it('the Shield export form refuses a query with a zero-width space, on its field', async () => {
    const records = await bed.run(`shield export ${bed.sandbox.ids.shieldZone}`);
    const form = records.find((record) => record.kind === 'form');
    if (form?.kind !== 'form') throw new Error(`no form: ${JSON.stringify(records).slice(0, 300)}`);
    const now = bed.clock();
    const sent = await bed.submit(form.modal, {
      from: String(now - 3_600_000),
      to: String(now),
      query: 'ip\u200b:1.2.3.4',
    });
    expect(sent).toEqual({
      errors: { query: expect.stringContaining('The query contains U+200B ZERO WIDTH SPACE at character 3') },
    });
  });
});
