/**
 * The wording rules, checked once on the replies of a tour through every command: what people
 * read is counted, sized and paged the way they would say it, and carries no internals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReplyForTerminal } from '../../src/console/render.js';
import { createStyle } from '../../src/console/style.js';
import type { Reply } from '../../src/reply/model.js';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import { type EngineTestbed, type Recorded, startEngineTestbed } from '../support/engine.js';
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
