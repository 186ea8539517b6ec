/**
 * `/edge db exec` through the engine: the impact count reads data before anyone approves, so it
 * is offered only to a requester who may read that data with /edge db query anyway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, type Recorded, startEngineTestbed, wordsOf } from '../support/engine.js';

const POLICY = `
roles:
  everyone: ["*"]
  readers: [U0READER]
  leads: [U0LEAD]
grants:
  - ops: [db.exec]
    roles: [everyone]
  - ops: [db.query]
    roles: [readers]
approvals:
  rules:
    - ops: [db.exec]
      approvers: [leads]
      required: 1
`;

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY, serviceDatabase: true });
});
afterAll(async () => {
  await bed?.close();
});

const cardOf = (records: Recorded[]) =>
  records.flatMap((r) =>
    r.kind === 'post' && wordsOf(r.reply).includes('Impact') ? [wordsOf(r.reply)] : [],
  )[0] ?? '';

async function cancelled(records: Recorded[], userId: string) {
  const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(records))?.[0];
  expect(id).toBeDefined();
  await bed.click({ actionId: 'approvals:cancel', value: id! }, { userId });
}

describe('the impact count of /edge db exec', () => {
  it('is not run for a requester who may not run /edge db query here, and the card says why', async () => {
    const records = await bed.run('db exec DELETE FROM orders WHERE id = 3', { userId: 'U0WRITER' });
    const card = cardOf(records);
    expect(card).toContain('Impact unknown: counting rows needs the db.query grant');
    expect(card).not.toMatch(/\d+ rows? match/);
    await cancelled(records, 'U0WRITER');
  });

  it('is run for a requester who may read the data anyway', async () => {
    const records = await bed.run('db exec DELETE FROM orders WHERE id = 3', { userId: 'U0READER' });
    expect(cardOf(records)).toContain('1 row matches its WHERE now');
    await cancelled(records, 'U0READER');
  });
});
