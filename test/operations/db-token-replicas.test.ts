/**
 * A rotated token of the bot's own database reaches only the replica that ran the change: the
 * card and the result say so and name the variable to set, and a replica whose token the
 * database refuses says so in each `/edge db` answer and logs it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    policyYaml: everyoneMayRun({ gated: ['db.tokens.invalidate', 'db.exec'], leads: ['U0LEAD'] }),
  });
});
afterAll(async () => {
  await bed?.close();
});

const everything = (records: readonly Recorded[]) =>
  records.map((record) => JSON.stringify(record)).join('\n');

describe('a regenerated token of the bot’s own database', () => {
  it('says on the card and in the result that other replicas keep the old token until restarted with SERVICE_DATABASE_AUTH_TOKEN', async () => {
    const asked = await bed.run('db tokens invalidate --regenerate');
    const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(asked))?.[0];
    expect(id, everything(asked).slice(0, 400)).toBeDefined();
    const card = asked.flatMap((r) => (r.kind === 'post' ? [wordsOf(r.reply)] : [])).join('\n');
    expect(card).toContain('Only the replica that runs this change switches its queries to the new token');
    expect(card).toContain(
      'every other replica keeps the old token, and its /edge db answers fail, until it is restarted with SERVICE_DATABASE_AUTH_TOKEN set to the new token',
    );
    expect(card).not.toContain('the bot switches its queries to the new token');

    const approved = await bed.click(
      { actionId: 'approvals:approve', value: id! },
      { userId: 'U0LEAD', channelId: 'C0APPROVALS' },
    );
    const shown = everything(approved);
    expect(shown).toContain('The replica that ran this change uses it for its own queries until restarted');
    expect(shown).toContain('every other replica keeps the old token');
    const dm = approved.flatMap((r) => (r.kind === 'dm' ? [wordsOf(r.reply)] : [])).join('\n');
    expect(dm).toContain('set it as SERVICE_DATABASE_AUTH_TOKEN on every replica and restart the others');
    // The replica that ran it goes on answering with the new token.
    expect(wordsOf(onlyAnswer(await bed.run('db query SELECT 1 AS one')))).toContain('one');
  });
});

describe('a replica whose database token is refused', () => {
  it('says so in each /edge db answer, naming SERVICE_DATABASE_AUTH_TOKEN, and logs it once', async () => {
    // As after a rotation run on another replica: the token this one holds no longer works.
    await bed.runtime.services.platform.revokeDatabaseTokens(bed.sandbox.databaseId);
    const logged = bed.logs.length;
    const answers = [
      onlyAnswer(await bed.run('db query SELECT 1')),
      onlyAnswer(await bed.run('db query SELECT count(*) FROM orders')),
      onlyAnswer(await bed.run("db exec UPDATE orders SET status = 'x' WHERE id = 1")),
    ];
    for (const answer of answers) {
      const words = wordsOf(answer);
      expect(words).toContain(
        'The database refused the access token of this replica, SERVICE_DATABASE_AUTH_TOKEN',
      );
      expect(words).toContain(
        'until this replica is restarted with SERVICE_DATABASE_AUTH_TOKEN set to a token',
      );
      expect(words).toContain('HTTP 401');
    }
    const lines = bed.logs.slice(logged);
    expect(lines.filter((line) => line.includes('refuses SERVICE_DATABASE_AUTH_TOKEN'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('customer database call failed'))).toEqual([]);
  });
});
