/**
 * The wording rules, checked once on the replies of a tour through every command: what people
 * read is counted, sized and paged the way they would say it, and carries no internals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageBook } from '../../src/console/book.js';
import { createOutFiles } from '../../src/console/out-files.js';
import { renderReplyForTerminal } from '../../src/console/render.js';
import { createStyle } from '../../src/console/style.js';
import { createConsoleMessenger, createConsoleSurface } from '../../src/console/surface.js';
import { createTerminal } from '../../src/console/terminal.js';
import type { Reply } from '../../src/reply/model.js';
import { cellText } from '../../src/reply/table.js';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { type ApprovalDesk, approvalDesk, requestIdIn } from '../support/approval-desk.js';
import {
  answers,
  dmsIn,
  type EngineTestbed,
  fieldsOf,
  formIn,
  headlineIn,
  onlyAnswer,
  postsIn,
  type Recorded,
  readableOf as readableReply,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

const TOUR = [
  '',
  'help',
  'help reset-key',
  'whoami',
  'dns',
  'dns --page 99',
  `dns ${SEEDED_IDS.hostileDnsZone}`,
  'dns 999999',
  'apikeys',
  'apikeys --page 99',
  'pullzones',
  'pullzones nothing-is-called-this',
  'pullzone',
  `pullzone reset-key ${SEEDED_IDS.pullZone} rotated after the incident`,
  'pullzone reset-key 999999 rotated after the incident',
  'shield',
  'shield zones',
  'shield enums',
  `shield bot-detection ${SEEDED_IDS.shieldZone}`,
  `shield export ${SEEDED_IDS.shieldZone}`,
  `shield export ${SEEDED_IDS.shieldZone} --last 1h`,
  `logs ${SEEDED_IDS.pullZone} --last 1h`,
  `logs ${SEEDED_IDS.quietPullZone} --last 1h`,
  'logs 999999 --last 1h',
  'db',
  'db query SELECT 1 AS one',
  'db query SELECT * FROM sqlite_master WHERE 0',
  'db query SELEC 1',
  "db exec INSERT INTO notes (body) VALUES ('from the tour')",
  'db tokens',
  'db tokens create --expires 1d',
  'approvals',
  'approvals --page 99',
  'audit',
  'audit --limit 1',
  'watch logs 308006 --for 1h',
  'watches',
  'home',
  'context',
  'library create',
  'not-a-command',
] as const;

/** Every word a person reads in a reply: its text, blocks, buttons, files and thread. */
function readable(reply: Reply): string[] {
  const out = [reply.text];
  for (const block of reply.blocks) {
    switch (block.type) {
      case 'header':
      case 'text':
      case 'context':
      case 'code':
        out.push(block.text);
        break;
      case 'fields':
        for (const field of block.fields) out.push(field.label, field.value);
        break;
      case 'actions':
        for (const button of block.buttons) out.push(button.text, button.confirm?.text ?? '');
        break;
      case 'image':
        out.push(block.image.title, block.image.altText);
        break;
      case 'divider':
        break;
    }
  }
  for (const file of reply.files ?? []) out.push(file.title, file.comment ?? '', file.about ?? '');
  for (const child of reply.thread ?? []) out.push(...readable(child));
  return out;
}

function readableOf(records: readonly Recorded[]): string {
  return records
    .flatMap((record) => {
      if (record.kind === 'delete') return [];
      if (record.kind === 'form')
        return [record.modal.title, record.modal.intro ?? '', ...record.modal.fields.map((f) => f.label)];
      return readable(record.reply);
    })
    .join('\n');
}

/** Each rule: a pattern that must not appear, and what it stands for. */
const RULES: readonly (readonly [RegExp, string])[] = [
  [/\((?:s|es)\)/, 'a plural written as "(s)"'],
  [
    /(?<![\d.,])\b1 (?:records|rows|approvals|entries|events|zones|keys|columns|results|errors|requests|tokens|pages|days|hours|minutes|commands|values)\b/,
    'a plural after 1',
  ],
  [/\b0(?:\.\d+)? MB\b/, 'a size under 1 MB written in MB'],
  [/\bpullZoneId:|\bshieldZoneId:|\bsql:|\bzoneId:/, 'an internal argument name as a prefix'],
  [/SQLITE_UNKNOWN|SQLITE_ERROR\b|SERVER_ERROR/, 'a database error code that says nothing'],
  // Request paths (/video/intro.m3u8) are data; a directory of the server is not.
  [/\/(?:tmp|work|home|var|etc|srv|app|opt|Users)\/[\w.-]/, 'a server file path'],
  [/(?<!<@)\bU0[A-Z0-9]{2,}\b/, 'a Slack user shown as a raw id'],
  [/:[a-z_]+:/, 'an emoji code (fine in Slack, checked separately for the console)'],
  [/\(optional\)/i, 'a label that says optional, which every form adds itself'],
  [
    /\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/,
    'an ISO 8601 timestamp where people read 2026-11-21 14:00 UTC',
  ],
];

let bed: EngineTestbed;
const said = new Map<string, string>();
/** The replies of the tour as the console prints them. */
const printed = new Map<string, string>();

function terminalText(records: readonly Recorded[]): string {
  let n = 0;
  const options = { style: createStyle(false), width: 100, numberButton: () => ++n };
  return records
    .flatMap((record) => {
      if (record.kind === 'form' || record.kind === 'delete') return [];
      const replies = [record.reply, ...(record.reply.thread ?? [])];
      return replies.flatMap((reply) => renderReplyForTerminal(reply, options).lines);
    })
    .join('\n');
}

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun(), serviceDatabase: true });
  for (const command of TOUR) {
    const records = await bed.run(command);
    said.set(command, readableOf(records));
    printed.set(command, terminalText(records));
  }
}, 120_000);
afterAll(async () => {
  await bed?.close();
});

describe('the wording of every reply', () => {
  // Emoji codes are how Slack writes emoji; the console check is in test/console.
  const rules = RULES.filter(([, what]) => !what.startsWith('an emoji'));

  it.each(TOUR)('/edge %s', (command) => {
    const words = said.get(command)!;
    expect(words.trim()).not.toBe('');
    for (const [pattern, what] of rules) {
      const found = pattern.exec(words);
      expect(
        found,
        `${what}: …${found ? words.slice(Math.max(0, found.index - 60), found.index + 60) : ''}…`,
      ).toBeNull();
    }
  });

  it('never shows a page past the last one', () => {
    for (const [command, words] of said) {
      for (const match of words.matchAll(/Page (\d+) of (\d+)/g))
        expect(Number(match[1]), `/edge ${command}`).toBeLessThanOrEqual(Number(match[2]));
    }
  });

  it('shows emoji as characters in the console, never as :codes:', () => {
    for (const [command, words] of printed) {
      // Not `country:in:DE`, a filter written as typed.
      const code = /(?<![\w:]):[a-z][a-z0-9_+-]*:(?!\w)/.exec(words);
      expect(code?.[0], `/edge ${command}`).toBeUndefined();
    }
  });

  it('says that a pull zone was not found in those words', () => {
    expect(said.get('logs 999999 --last 1h')).toContain('No pull zone 999999 was found');
  });
});

describe('a refusal', () => {
  let kept: EngineTestbed;
  beforeAll(async () => {
    kept = await startEngineTestbed({
      policyYaml: `
owner: U0KEEPER
roles:
  oncall: [U0ALICE]
grants:
  - ops: [dns.list]
    roles: [oncall]
`,
    });
  });
  afterAll(async () => {
    await kept?.close();
  });

  it('names the policy by its owner, as a mention, and never by its path on the server', async () => {
    const noGrant = readableOf(await kept.run('apikeys', { userId: 'U0BOB' }));
    expect(noGrant).toContain(
      'no grant in the policy kept by <@U0KEEPER> allows apikey.list; ask <@U0KEEPER>',
    );
    const notInRole = readableOf(await kept.run('dns', { userId: 'U0BOB' }));
    expect(notInRole).toContain('ask <@U0ALICE> for help');
    const whoami = readableOf(await kept.run('whoami', { userId: 'U0BOB' }));
    expect(whoami).toContain('the policy kept by <@U0KEEPER>');
    // What people type, next to the id the policy speaks of.
    expect(whoami).toContain('`/edge dns` (dns.list)');
    for (const words of [noGrant, notInRole, whoami]) {
      expect(words).not.toMatch(/\/(?:tmp|work|home)\//);
      expect(words).not.toMatch(/policy\.ya?ml/);
      expect(words).not.toMatch(/(?<!<@)\bU0BOB\b/);
    }
  });
});

/** The words of a reply as people read them, every line of it, buttons left out. */
const wordsIn = (reply: Reply): string => readableReply(reply);

describe('texts that read as finished', () => {
  let bed: EngineTestbed;
  let desk: ApprovalDesk;
  beforeAll(async () => {
    bed = await startEngineTestbed({
      policyYaml: everyoneMayRun({
        gated: ['pullzone.reset-key', 'db.exec', 'db.tokens.create', 'db.tokens.invalidate'],
      }),
      serviceDatabase: true,
    });
    desk = approvalDesk(bed);
  });
  afterAll(async () => {
    await bed?.close();
  });

  /** Asks for a gated change as U0YOU; its request id and the card posted for it. */
  async function asked(command: string, userId = 'U0YOU') {
    const records = await bed.run(command, { userId });
    const card = desk.cardIn(records).reply;
    return { id: requestIdIn(wordsOf(card)), card, records };
  }

  it('names the day before once, and calls the rate of a day that is over that day’s', async () => {
    const over = fieldsOf(headlineIn(await bed.run(`logs ${SEEDED_IDS.pullZone} yesterday`)));
    expect(over.get('That day')).toBe('-40% on the day before (242)');
    expect(over.has('Rate now')).toBe(false);
    expect([...over.values()].join('\n')).not.toContain('the the');
    const running = fieldsOf(headlineIn(await bed.run(`logs ${SEEDED_IDS.pullZone} --last 1h`)));
    expect(running.get('Rate now')).toBe('0% on the previous 1h (7)');
  });

  it('counts one error and one alert episode of a watch in the singular', async () => {
    const records = await bed.run(`watch logs ${SEEDED_IDS.pullZone} --for 1h`);
    const id = /wa_[0-9a-f]{12}/.exec(JSON.stringify(records))![0];
    await bed.runtime.services.state.client.execute({
      sql: "UPDATE watches SET progress_json = json_set(progress_json, '$.total', 1, '$.episodes', 1) WHERE id = ?",
      args: [id],
    });
    const stopped = await bed.click({ actionId: 'watch.logs:stop', value: id });
    const note = postsIn(stopped)
      .map((post) => wordsIn(post.reply))
      .find((words) => words.includes('ended: stopped by'));
    expect(note).toBe(
      `:stop_sign: The watch of pull zone ${SEEDED_IDS.pullZone} ended: stopped by <@U0YOU>. It counted 1 error (every status) and 1 alert episode.`,
    );
  });

  it('/edge watches writes a count with thousands separators', async () => {
    const records = await bed.run(`watch logs ${SEEDED_IDS.pullZone} --for 1h`);
    const id = /wa_[0-9a-f]{12}/.exec(JSON.stringify(records))![0];
    await bed.runtime.services.state.client.execute({
      sql: "UPDATE watches SET progress_json = json_set(progress_json, '$.total', 243848) WHERE id = ?",
      args: [id],
    });
    const listed = wordsIn(onlyAnswer(await bed.run('watches')));
    expect(listed).toContain(': 243,848 errors since ');
    expect(listed).not.toContain('243848');
    await bed.click({ actionId: 'watch.logs:stop', value: id });
  });

  it('says an approval request id was never made, not that it is gone', async () => {
    const expected =
      'There is no approval request ap_0000000000000000: none was ever made with that id (closed and expired requests are kept). Type /edge approvals --all to see the latest ones.';
    for (const records of [
      await bed.run('approvals cancel ap_0000000000000000'),
      await desk.click('approve', 'ap_0000000000000000', 'U0LEAD'),
      await bed.run('approvals ap_0000000000000000'),
    ]) {
      const said = wordsIn(onlyAnswer(records));
      expect(said).toContain(expected);
      expect(said).not.toContain('does not exist');
    }
  });

  it('says a watch id was never made, not that it is gone', async () => {
    const records = await bed.click({ actionId: 'watch.logs:stop', value: 'wa_000000000000' });
    const said = wordsIn(onlyAnswer(records));
    expect(said).toContain(
      'There is no watch wa_000000000000: none was ever made with that id (ended watches are kept). Type /edge watches to see the running ones.',
    );
    expect(said).not.toContain('does not exist');
  });

  it('writes a token’s expiry on the card and in the DM the same way, never as ISO 8601', async () => {
    const { id, card } = await asked('db tokens create --read-only --expires 7d');
    expect(fieldsOf(card).get('Token expires')).toBe('2026-11-28 14:00 UTC');
    const approved = await desk.click('approve', id, 'U0LEAD');
    const dm = dmsIn(approved, 'U0YOU').map((record) => wordsIn(record.reply));
    expect(dm.join('\n')).toContain('expires 2026-11-28 14:00 UTC');
    const everything = [...dm, ...approved.flatMap((r) => ('reply' in r ? [wordsIn(r.reply)] : []))];
    expect(everything.join('\n')).not.toMatch(/2026-11-28T14:00/);
  });

  it('writes the instants of a request’s timeline as every message does', async () => {
    const { id } = await asked(`pullzone reset-key ${desk.freshZone()} rotated`);
    const shown = wordsIn(onlyAnswer(await bed.run(`approvals ${id}`)));
    expect(shown).toContain('needs 1 approval from leads; expires 2026-11-21 14:30 UTC; params sha256 ');
    expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    await desk.click('cancel', id, 'U0YOU');
  });

  it('gives the last insert id after an INSERT only', async () => {
    const update = await asked("db exec UPDATE orders SET note = 'tour' WHERE id = 4");
    const updated = answers(await desk.click('approve', update.id, 'U0LEAD')).map(wordsIn);
    expect(updated.join('\n')).toContain('it ran: 1 row affected (the preview counted 1 row).');
    expect(updated.join('\n')).not.toContain('last insert id');
    const insert = await asked(
      "db exec INSERT INTO customers (name, email, country, created_at) VALUES ('Tour', 'tour@example.com', 'DE', '2026-11-21')",
    );
    const inserted = answers(await desk.click('approve', insert.id, 'U0LEAD')).map(wordsIn);
    expect(inserted.join('\n')).toMatch(/it ran: 1 row affected, last insert id \d+\./);
  });

  it('says how many rows a statement without WHERE changes, never that they match its WHERE', async () => {
    const { id, card } = await asked('db exec DELETE FROM orders');
    const impact = fieldsOf(card).get('Impact');
    expect(impact).toBe(
      'It changes all 30 rows the table holds now (counted 14:00 UTC, read-only); rows changed by triggers and foreign-key cascades are not counted.',
    );
    expect(wordsIn(card)).toContain('*No WHERE: this changes every row of orders.*');
    expect(wordsIn(card)).not.toContain('match its WHERE');
    await desk.click('cancel', id, 'U0YOU');
  });

  it('points to /edge shield zones for an unknown Shield zone, as logs does for a pull zone', async () => {
    const said = wordsIn(onlyAnswer(await bed.run('shield export 9999 --last 1h')));
    expect(said).toContain(
      'Shield zone 9999 was not found. Check the id, or find it with /edge shield zones.',
    );
  });

  it('says once that an export window lies within the last 72 hours, and from when', async () => {
    const said = wordsIn(
      onlyAnswer(await bed.run(`shield export ${SEEDED_IDS.shieldZone} --from -80h --to -70h`)),
    );
    expect(said).toContain(
      'the window must lie within the last 72 hours: start at 2026-11-18 14:00 UTC or later',
    );
    expect(said).not.toContain('windows are limited');
    expect(said.match(/72 hours/g)).toHaveLength(1);
  });

  it('says which page is the last when the page asked for is past it, in every paged listing', async () => {
    const cases = [
      ['apikeys --page 99', 'Page 2 of 2. There is no page 99: the last page is 2. Keys are masked'],
      ['dns --page 99', 'Page 2 of 2. There is no page 99: the last page is 2.'],
      ['pullzones --page 99', 'Page 1 of 1. There is no page 99: the last page is 1. The menu runs'],
      ['shield zones --page 99', 'Page 1 of 1. There is no page 99: the last page is 1. The menu runs'],
    ] as const;
    for (const [command, said] of cases)
      expect(wordsIn(onlyAnswer(await bed.run(command))), `/edge ${command}`).toContain(said);
    expect(wordsIn(onlyAnswer(await bed.run('apikeys --page 2')))).not.toContain('There is no page');
  });

  it('suggests the enumeration a typo meant, as the command words do', async () => {
    const said = wordsIn(onlyAnswer(await bed.run('shield enums Opertor')));
    expect(said).toBe(
      ':warning: There is no WAF enumeration named "Opertor" (did you mean /edge shield enums Operator?). Known: Variable, Operator, Transformation, Action, Severity.',
    );
  });

  it('/edge audit shows one line per request, a request filed for approval as requested, and the verdict first', async () => {
    const { id } = await asked('db tokens invalidate');
    const reply = onlyAnswer(await bed.run('audit --op db.tokens.invalidate --verify'));
    const texts = reply.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []));
    expect(texts[0]).toMatch(/^:white_check_mark: The hash chain verifies: \d+ rows, no link broken\.$/);
    const at = reply.blocks.findIndex((block) => block.type === 'table');
    expect(at).toBeGreaterThan(reply.blocks.findIndex((block) => block.type === 'text'));
    const table = reply.blocks[at]?.type === 'table' ? reply.blocks[at].table : undefined;
    expect(table?.rows).toHaveLength(1);
    const line = table!.rows[0]!.map(cellText).join(' · ');
    expect(line).toContain(`db.tokens.invalidate · ${bed.sandbox.databaseId} · approval-requested · c-`);
    expect(line).not.toContain('succeeded');
    expect(wordsIn(reply)).toContain('One row per request, with its steps in order.');
    // The row the command itself wrote says what it did: filed the request.
    const rows = await bed.runtime.services.audit.list({
      limit: 20,
      filter: { operation: 'db.tokens.invalidate' },
    });
    expect(rows.map((row) => row.outcome)).toEqual(['requested', 'approval-requested', 'started']);
    expect(rows[0]!.approvalId).toBe(id);
    await desk.click('cancel', id, 'U0YOU');
  });

  it('names a thread by its message number in the console, as the logs answer does', async () => {
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    const terminal = createTerminal({ input: new PassThrough(), output, interactive: false });
    const outDir = mkdtempSync(join(tmpdir(), 'edgeops-wording-'));
    const screen = {
      terminal,
      style: createStyle(false),
      book: createMessageBook({ now: bed.clock }),
      files: createOutFiles({ dir: outDir }),
      logger: createLogger({
        level: 'error',
        secrets: new SecretRegistry(),
        clock: bed.clock,
        write: () => {},
      }),
      secrets: new SecretRegistry(),
      forms: [],
    };
    try {
      const zone = desk.freshZone();
      const surface = createConsoleSurface(screen, { userId: 'U0YOU', channelId: 'C0OPS' });
      await bed.runtime.engine
        .plan({ userId: 'U0YOU', channelId: 'C0OPS', text: `pullzone reset-key ${zone} rotated`, surface })
        .run();
      const card = /── #(\d+) · posted in #C0APPROVALS ──/.exec(printed)![1];
      // Half the time to live: the approvers are reminded in the card's thread.
      bed.clock.advance(15 * 60_000);
      await bed.runtime.approvals.sweep(createConsoleMessenger(screen));
      expect(printed).toContain(`posted in #C0APPROVALS, in the thread of #${card} ──`);
      expect(printed).not.toMatch(/in the thread of \d+\.\d+/);
      const id = requestIdIn(printed);
      await desk.click('cancel', id, 'U0YOU');
    } finally {
      terminal.close();
      rmSync(outDir, { recursive: true, force: true });
    }
  });

  it('labels the reason of a rejection without saying optional, which every form adds itself', async () => {
    const { id } = await asked(`pullzone reset-key ${desk.freshZone()} rotated`);
    const form = formIn(await desk.click('reject', id, 'U0LEAD'));
    expect(form.fields.map((field) => [field.label, field.optional])).toEqual([['Reason', true]]);
    await desk.click('cancel', id, 'U0YOU');
  });
});
