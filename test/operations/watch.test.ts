/**
 * `/edge watch logs` as the engine sees it, without Slack: what it accepts, the defaults it
 * chooses, and the clear refusals for everything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun() });
});
afterAll(async () => {
  await bed?.close();
});

const refusal = async (text: string) => wordsOf(onlyAnswer(await bed.run(text, { channelId: 'C0OPS' })));

async function started(text: string) {
  const records = await bed.run(text, { channelId: 'C0OPS' });
  const posted = records.find((record) => record.kind === 'post');
  expect(posted).toBeDefined();
  const id = /wa_[0-9a-f]{12}/.exec(JSON.stringify(posted))![0];
  const row = await bed.runtime.services.state.client.execute({
    sql: 'SELECT every_ms, started_at, ends_at, alert_count, alert_window_ms, status_filter, code_filter FROM watches WHERE id = ?',
    args: [id],
  });
  await bed.click({ actionId: 'watch.logs:stop', value: id }, { channelId: 'C0OPS' });
  return row.rows[0]!;
}

describe('/edge watch logs', () => {
  it('polls every minute for two hours unless told otherwise', async () => {
    const row = await started('watch logs 308006');
    expect(row.every_ms).toBe(60_000);
    expect(Number(row.ends_at) - Number(row.started_at)).toBe(2 * 60 * 60_000);
    expect(row.alert_count).toBeNull();
  });

  it('takes the interval, the length, the filters and the alert as typed', async () => {
    const row = await started(
      'watch logs 308006 --status 502 --code dns_lookup --every 5m --for 24h --alert 50/5m',
    );
    expect(row).toMatchObject({
      every_ms: 300_000,
      alert_count: 50,
      alert_window_ms: 300_000,
      status_filter: '502',
      code_filter: 'dns_lookup',
    });
    expect(Number(row.ends_at) - Number(row.started_at)).toBe(24 * 60 * 60_000);
  });

  it.each([
    ['watch logs', 'give the pull zone id'],
    ['watch logs abc', 'must be a number'],
    ['watch logs 308006 7', 'unexpected argument'],
    ['watch logs 308006 --status 6xx', '--status takes a code like 502'],
    ['watch logs 308006 --code http_timout', 'did you mean --code http_timeout'],
    ['watch logs 308006 --every soon', '--every'],
    ['watch logs 308006 --every 30s', '--every must be at least 1m'],
    ['watch logs 308006 --for 2d', 'at most 24h'],
    ['watch logs 308006 --every 10m --for 5m', '--for must be at least --every'],
    ['watch logs 308006 --alert 50', '--alert 50/5m'],
    ['watch logs 308006 --alert 0/5m', 'at least 1'],
    ['watch logs 308006 --alert 50/2h', 'between 10s and 1h'],
  ])('%s is refused with what to type instead', async (text, expected) => {
    expect(await refusal(text)).toContain(expected);
  });

  it('a button that names no watch says so', async () => {
    const records = await bed.click(
      { actionId: 'watch.logs:stop', value: 'wa_000000000000' },
      { channelId: 'C0OPS' },
    );
    expect(wordsOf(onlyAnswer(records))).toContain(
      'There is no watch wa_000000000000: none was ever made with that id',
    );
  });
});
