/**
 * `/edge approvals` for an approver with many requests waiting: what does not fit the message
 * goes to a file, but an Approve button is never left beside another request's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitReply } from '../../src/reply/fit.js';
import { type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';

const POLICY = `
roles:
  everyone: ["*"]
  leads: [U0LEAD]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  ttl: 30m
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

describe('/edge approvals with more waiting than a message holds', () => {
  it('never shows a request’s Approve under the words of another request', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const requester = `U0MANY${String(i).padStart(2, '0')}`;
      const note = `${'x'.repeat(200)}${i}`;
      const records = await bed.run(`db exec DELETE FROM customers WHERE name = '${note}'`, {
        userId: requester,
      });
      const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(records))?.[0];
      if (!id) throw new Error(`no request for ${requester}`);
      ids.push(id);
    }
    const listing = onlyAnswer(await bed.run('approvals', { userId: 'U0LEAD' }));
    // What Slack (and the console) is sent: the listing fitted to one message.
    const { blocks } = fitReply(listing);
    let since = 0;
    blocks.forEach((block, at) => {
      if (block.type !== 'actions') return;
      const approve = block.buttons.find((button) => button.actionId.startsWith('approvals:approve'));
      if (approve) {
        // The words between the previous row of buttons and this one are this request's.
        const words = JSON.stringify(blocks.slice(since, at));
        expect(words, `Approve of ${approve.value} sits under: ${words.slice(0, 300)}`).toContain(
          approve.value,
        );
      }
      since = at + 1;
    });
  });
});
