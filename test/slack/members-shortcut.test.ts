/**
 * Members of the workspace keep every entry: a message shortcut as Slack documents its payload
 * (`message_action`, whose `user` is `{ id, name }` with no `team_id`; the workspace is `team`)
 * opens its form for a member of the installed workspace. Through the Bolt app, signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SIGNING_SECRET, startHarness } from '../support/harness.js';
import { DEFAULT_TEAM_ID, DEFAULT_USER_ID, messageShortcut } from '../support/payloads.js';
import { postSigned } from '../support/signer.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    policyYaml: 'roles:\n  everyone: ["*"]\ngrants:\n  - ops: "*"\n    roles: [everyone]\n',
  });
});
afterAll(async () => {
  await h?.close();
});

describe('a member’s message shortcut', () => {
  it('opens the Investigate form when the payload names the user as Slack’s message_action does', async () => {
    const request = messageShortcut({ callbackId: 'investigate', text: 'pull zone 308006 is failing' });
    const { team_id: _omitted, ...user } = request.payload.user;
    const payload = { ...request.payload, user };
    expect(payload.team).toMatchObject({ id: DEFAULT_TEAM_ID });
    expect(payload.user).toEqual({ id: DEFAULT_USER_ID, name: 'you', username: 'you' });
    const opened = h.fake.callsTo('views.open').length;
    const ack = await postSigned(
      h.eventsUrl,
      { ...request, body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString() },
      { signingSecret: SIGNING_SECRET },
    );
    expect(ack.status).toBe(200);
    await h.fake.waitFor('views.open', () => true, 5_000);
    expect(h.fake.callsTo('views.open')).toHaveLength(opened + 1);
    const refused = await h.runtime.services.audit.list({ limit: 10, filter: { userId: DEFAULT_USER_ID } });
    expect(refused.filter((row) => row.outcome === 'denied')).toEqual([]);
  });
});
