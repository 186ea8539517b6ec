/** `/edge audit` through the engine: every command leaves a row, and the hash chain verifies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../src/reply/model.js';
import { type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

/** The lines of an audit answer: `id time · user · operation · target · outcome · correlation`. */
const linesOf = (reply: Reply) =>
  reply.blocks
    .flatMap((block) => (block.type === 'text' ? block.text.split('\n') : []))
    .filter((line) => line.startsWith('`'));

describe('/edge audit', () => {
  it('writes an audit row for each command and the chain verifies', async () => {
    onlyAnswer(await bed.run('dns'));
    bed.sandbox.faults.set('dnszone.list', { status: 503, times: 3 });
    onlyAnswer(await bed.run('dns'));
    const answer = onlyAnswer(await bed.run('audit --limit 5 --verify'));
    expect(JSON.stringify(answer.blocks)).toContain('The hash chain verifies');
    const rows = await bed.runtime.services.audit.list({ limit: 100 });
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'succeeded')).toBe(true);
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'failed')).toBe(true);
  });

  it('shows one line per request, and leaves its own reads out unless --all', async () => {
    await bed.run('audit');
    onlyAnswer(await bed.run('apikeys', { userId: 'U0ANN' }));
    const lines = linesOf(onlyAnswer(await bed.run('audit --limit 50')));
    expect(lines.some((line) => line.includes('apikey.list') && line.includes('*succeeded*'))).toBe(true);
    // The started row of a finished request is folded into its outcome.
    expect(lines.filter((line) => line.includes('*started*'))).toEqual([]);
    expect(lines.filter((line) => line.includes('audit.list'))).toEqual([]);
    const all = linesOf(onlyAnswer(await bed.run('audit --limit 50 --all')));
    expect(all.some((line) => line.includes('audit.list'))).toBe(true);
  });

  it('narrows by user, as an id or as Slack delivers a mention, by operation and by target', async () => {
    onlyAnswer(await bed.run('dns', { userId: 'U0BEA' }));
    for (const user of ['U0BEA', '<@U0BEA|bea>', '&lt;@U0BEA|bea&gt;']) {
      const answer = onlyAnswer(await bed.run(`audit --user ${user}`));
      const lines = linesOf(answer);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((line) => line.includes('<@U0BEA>'))).toBe(true);
      expect(wordsOf(answer)).toContain('Showing user <@U0BEA>');
    }
    const byOp = linesOf(onlyAnswer(await bed.run('audit --op apikey.list')));
    expect(byOp.length).toBeGreaterThan(0);
    expect(byOp.every((line) => line.includes('`apikey.list`'))).toBe(true);
    expect(linesOf(onlyAnswer(await bed.run('audit --target nothing-has-this')))).toEqual([]);
  });

  it('takes --since as a duration or a time, and --request as an approval id', async () => {
    const start = bed.clock();
    onlyAnswer(await bed.run('dns', { userId: 'U0OLD' }));
    bed.clock.set(start + 3 * 3_600_000);
    onlyAnswer(await bed.run('dns', { userId: 'U0NEW' }));
    const recent = linesOf(onlyAnswer(await bed.run('audit --since 1h --limit 200')));
    expect(recent.some((line) => line.includes('<@U0NEW>'))).toBe(true);
    expect(recent.some((line) => line.includes('<@U0OLD>'))).toBe(false);
    const sinceStart = linesOf(
      onlyAnswer(await bed.run(`audit --since ${new Date(start).toISOString()} --limit 200`)),
    );
    expect(sinceStart.some((line) => line.includes('<@U0OLD>'))).toBe(true);
    expect(linesOf(onlyAnswer(await bed.run('audit --request ap_0123456789abcdef')))).toEqual([]);
  });

  it('attaches the selection as CSV with --csv', async () => {
    const answer = onlyAnswer(await bed.run('audit --op dns.list --csv'));
    const file = answer.files?.[0];
    expect(file?.filename).toMatch(/^audit-newest-\d+\.csv$/);
    const content = String(file?.content);
    expect(content.split('\r\n')[0]).toContain('id,time,user');
    expect(content).toContain('dns.list');
    expect(content).not.toContain('apikey.list');
  });

  it('runs one hash-chain check per person at a time', async () => {
    const audit = bed.runtime.services.audit;
    const verify = audit.verify;
    let entered = () => {};
    const inFirst = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first check is held open inside the chain until the others have been asked.
    audit.verify = async () => {
      entered();
      await held;
      return verify();
    };
    try {
      const first = bed.run('audit --verify', { userId: 'U0VER' });
      await inFirst;
      audit.verify = verify;
      const second = onlyAnswer(await bed.run('audit --verify', { userId: 'U0VER' }));
      expect(wordsOf(second)).toContain('Your earlier check of the hash chain is still running');
      expect(wordsOf(second)).not.toContain('The hash chain verifies');
      const someoneElse = onlyAnswer(await bed.run('audit --verify', { userId: 'U0OTHER' }));
      expect(wordsOf(someoneElse)).toContain('The hash chain verifies');
      release();
      expect(wordsOf(onlyAnswer(await first))).toContain('The hash chain verifies');
      const afterwards = onlyAnswer(await bed.run('audit --verify', { userId: 'U0VER' }));
      expect(wordsOf(afterwards)).toContain('The hash chain verifies');
    } finally {
      audit.verify = verify;
      release();
    }
  });

  it.each([
    ['audit --op dns.lst', 'did you mean --op dns.list?'],
    ['audit --user everyone', '--user takes a Slack member id'],
    ['audit --user @ann', 'a name such as @ann cannot be looked up'],
    ['audit --request 42', '--request takes an approval request id'],
    ['audit --since yesterdayish', '--since:'],
  ])('%s says what to type instead', async (command, said) => {
    expect(wordsOf(onlyAnswer(await bed.run(command)))).toContain(said);
  });
});
