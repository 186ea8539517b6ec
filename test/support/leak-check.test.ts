import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { findLeaks } from './leak-check.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack({ validateBlocks: false });
});
afterAll(async () => {
  await fake.close();
});

async function post(channel: string, text: string) {
  await fetch(`${fake.apiUrl}chat.postMessage`, {
    method: 'POST',
    headers: { authorization: 'Bearer xoxb-leak-test', 'content-type': 'application/json' },
    body: JSON.stringify({ channel, text }),
  });
}

describe('the secret-leak guard', () => {
  it('finds an account secret in a channel message, a DM and a log line', async () => {
    const secret = 'account-secret-0123456789';
    await post('C0OPS', `oops ${secret}`);
    await post('D0YOU', `also ${secret}`);
    const leaks = findLeaks(fake, [`{"msg":"${secret}"}`], { never: [secret] });
    expect(leaks.map((leak) => leak.where)).toEqual([
      'chat.postMessage to C0OPS',
      'chat.postMessage to D0YOU',
      'log line 1',
    ]);
    expect(JSON.stringify(leaks)).not.toContain(secret);
  });

  it('allows a generated secret in a DM but not in a channel', async () => {
    fake.reset();
    const generated = 'new-key-abcdefghijklmnop';
    await post('D0YOU', `your key: ${generated}`);
    expect(findLeaks(fake, [], { never: [], dmOnly: [generated] })).toEqual([]);
    await post('C0OPS', `key ${generated}`);
    expect(findLeaks(fake, [], { never: [], dmOnly: [generated] })).toHaveLength(1);
  });
});

describe('the secret-leak guard over audit rows', () => {
  it('finds a generated secret in an audit row', () => {
    const generated = 'generated-token-0123456789';
    const leaks = findLeaks(fake, [], { never: [], dmOnly: [generated] }, [
      { where: 'audit row 7', text: JSON.stringify({ params: { token: generated } }) },
    ]);
    expect(leaks).toEqual([
      { secret: `…${generated.slice(-4)} (${generated.length} chars)`, where: 'audit row 7' },
    ]);
  });
});
