/** `/edge dns` through the engine: the listing, a zone's records, argument errors and failed reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EngineTestbed,
  menuOptionsOf,
  onlyAnswer,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { sentTable } from '../support/sent-table.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

const lastRequest = () => bed.sandbox.requests.last('dnszone.list');

describe('/edge dns', () => {
  it('shows a zone’s records with type names, hostile values kept as the platform sent them', async () => {
    const list = onlyAnswer(await bed.run('dns'));
    const recordButtons = menuOptionsOf(list).filter((b) => b.actionId === 'dns:records');
    expect(recordButtons.length).toBeGreaterThan(1);
    const rows: (string | number)[][] = [];
    for (const button of recordButtons) {
      const reply = onlyAnswer(await bed.click(button));
      // A zone without records says so instead of showing an empty table.
      if (reply.blocks.some((block) => block.type === 'table')) rows.push(...sentTable(reply).rows);
      else expect(wordsOf(reply)).toContain('This zone has no records.');
    }
    for (const name of ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'CAA'])
      expect(rows.map((row) => row[0])).toContain(name);
    // A raw_text cell: shown as written, it cannot ping (test/slack/commands.test.ts checks the message).
    expect(rows).toContainEqual(['TXT', 'announce', '<!channel>', 300, 'enabled']);
  });

  /** Picks the zone a search finds in the Records menu. */
  const recordsOf = async (search: string) => {
    const button = menuOptionsOf(onlyAnswer(await bed.run(`dns ${search}`))).find(
      (b) => b.actionId === 'dns:records',
    );
    return onlyAnswer(await bed.click(button!));
  };

  it('shows a zone’s records as a table: type, name and whole value as text, the TTL as a number', async () => {
    const reply = await recordsOf('mail-example');
    const table = sentTable(reply);
    expect(table.headers).toEqual(['Type', 'Name', 'Value', 'TTL', 'State']);
    expect(table.types).toEqual(['raw_text', 'raw_text', 'raw_text', 'raw_number', 'raw_text']);
    expect(table.align).toEqual(['left', 'left', 'left', 'right', 'left']);
    expect(table.rows).toHaveLength(4);
    expect(table.rows).toContainEqual([
      'TXT',
      'default._domainkey',
      'v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC',
      300,
      'enabled',
    ]);
    expect(table.rows).toContainEqual(['A', 'mx1', '192.0.2.11', 300, 'disabled']);
    expect(table.text).toContain('4 records · zone id');
    expect(reply.files ?? []).toEqual([]);
    expect(table.refused).toEqual([]);
  });

  it('shows 99 of a zone’s 120 records with their values whole, and every record in the CSV', async () => {
    const reply = await recordsOf('large-example');
    const table = sentTable(reply);
    expect(table.headers).toEqual(['Type', 'Name', 'Value', 'TTL', 'State']);
    expect(table.rows).toHaveLength(99);
    const dkim = table.rows.find((row) => row[1] === 'mail._domainkey');
    expect(dkim?.[2]).toMatch(/^v=DKIM1; k=rsa; p=MIIB.{300,}IDAQAB$/);
    expect(table.text).toContain('Showing the first 99 of 120 rows; every row is in the attached CSV.');
    expect(table.files.map((f) => [f.filename, f.about])).toEqual([
      ['dns-records-large-example.com.csv', 'all 120 rows'],
    ]);
    const records = String(reply.files?.[0]?.content).trim().split('\r\n');
    expect(records[0]).toBe('Type,Name,Value,TTL,State');
    expect(records).toHaveLength(121);
    expect(records.find((line) => line.includes('mail._domainkey'))).toMatch(/p=MIIB[^,]{300,}IDAQAB/);
    expect(table.refused).toEqual([]);
  });

  it('lists the zones as a table: domain and id as text, the records counted as a number', async () => {
    const list = onlyAnswer(await bed.run('dns --per-page 100'));
    const tables = list.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    expect(tables[0]!.columns).toEqual([
      { header: 'Domain', kind: 'text' },
      { header: 'Id', kind: 'text' },
      { header: 'Records', kind: 'number' },
      { header: 'Nameservers detected', kind: 'text' },
      { header: 'DNSSEC', kind: 'text' },
      { header: 'Logging', kind: 'text' },
    ]);
    expect(tables[0]!.rows.map((row) => row[1])).toEqual(bed.sandbox.dnsZoneIds.map(String));
    for (const row of tables[0]!.rows) expect(typeof row[2]).toBe('number');
    // Every zone on the page is a row: no CSV needed.
    expect(list.files ?? []).toEqual([]);
    const lite = onlyAnswer(await bed.run('dns --lite'));
    const liteTable = lite.blocks.find((block) => block.type === 'table');
    expect(liteTable?.type === 'table' && liteTable.table.columns.map((c) => c.header)).not.toContain(
      'Records',
    );
  });

  it('searches DNS zones and uses the Lite view with --lite', async () => {
    const answer = onlyAnswer(await bed.run('dns example --lite --per-page 5'));
    expect(JSON.stringify(answer.blocks)).toContain('matching \\"example\\"');
    expect(lastRequest()?.query).toMatchObject({ search: 'example', view: '1', perPage: '5', page: '1' });
  });

  it('gives the usage line and a specific error for a bad argument, without calling the platform', async () => {
    const before = bed.sandbox.requests.count('dnszone.list');
    const answer = onlyAnswer(await bed.run('dns --per-page 2'));
    expect(answer.visibility).toBe('ephemeral');
    expect(answer.text).toContain('--per-page must be between 5 and 1000');
    expect(JSON.stringify(answer.blocks)).toContain('/edge dns [SEARCH]');
    expect(onlyAnswer(await bed.run('dns --colour red')).text).toContain('unknown flag --colour');
    expect(onlyAnswer(await bed.run('dnz')).text).toContain('did you mean "dns"');
    expect(bed.sandbox.requests.count('dnszone.list')).toBe(before);
  });

  it('retries a failing read and then reports it with a correlation id that is in the log', async () => {
    bed.sandbox.faults.set('dnszone.list', { status: 503, times: 3 });
    const before = bed.sandbox.requests.count('dnszone.list');
    const answer = onlyAnswer(await bed.run('dns'));
    expect(bed.sandbox.requests.count('dnszone.list') - before).toBe(3);
    const id = /correlation id (c-[0-9a-f]+)/.exec(answer.text)?.[1];
    expect(id).toBeDefined();
    expect(bed.logs.some((line) => line.includes(id!))).toBe(true);
  });

  it('recovers when a read fails twice and then succeeds', async () => {
    bed.sandbox.faults.set('dnszone.list', { status: 500, times: 2 });
    expect(onlyAnswer(await bed.run('dns')).text).toMatch(/DNS zones/);
  });

  it('/edge zones works like /edge dns', async () => {
    const before = bed.sandbox.requests.count('dnszone.list');
    onlyAnswer(await bed.run('zones'));
    expect(bed.sandbox.requests.count('dnszone.list')).toBe(before + 1);
  });

  it('suggests the flag meant by a typo', async () => {
    expect(wordsOf(onlyAnswer(await bed.run('dns --pgae 2')))).toContain(
      'unknown flag --pgae (did you mean --page?)',
    );
  });
});

describe('/edge dns typed on a phone', () => {
  it.each(['—lite', '–lite', '-lite'])(
    '/edge dns %s lists zones in the Lite view instead of searching',
    async (flag) => {
      onlyAnswer(await bed.run(`dns ${flag}`));
      expect(lastRequest()?.query).toMatchObject({ view: '1' });
      expect(lastRequest()?.query.search).toBeUndefined();
    },
  );
});

describe('the Records menu of a zone whose domain is long', () => {
  it('carries as much of the domain as fits in an option, and a pick still finds the zone by it and its id', async () => {
    const list = onlyAnswer(await bed.run('dns'));
    const option = menuOptionsOf(list).find((o) => o.actionId === 'dns:records')!;
    const long = {
      ...option,
      value: JSON.stringify({
        id: JSON.parse(option.value).id,
        domain: JSON.parse(option.value).domain?.slice(0, 3),
      }),
    };
    const records = wordsOf(onlyAnswer(await bed.click(long)));
    expect(records).toContain('Records of');
    expect(lastRequest()?.query.search).toBe(JSON.parse(long.value).domain);
  });
});
