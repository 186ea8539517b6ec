import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
/** Opened by a test to let events past the middleware below; closed again after it. */
let gate: Promise<void> | undefined;
/** Resolves the next time an event reaches the middleware. */
let reached: (() => void) | undefined;

beforeAll(async () => {
  h = await startHarness();
  // Runs before every listener, as Bolt's own middleware does: an event held here has not been dispatched.
  h.slack.app.use(async ({ next }) => {
    reached?.();
    await gate;
    await next();
  });
});
afterAll(async () => {
  await h?.close();
});

const responseTo = (url: string) => h.fake.waitForResponse((post) => url.endsWith(post.id), 5_000);
const ackCount = async () => {
  const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return Number(/^edgeops_ack_seconds_count (\d+)$/m.exec(metrics)?.[1] ?? Number.NaN);
};

describe('a slash command acknowledged on arrival', () => {
  it('is acknowledged while Bolt has not dispatched it yet, and still answered once it does', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const inMiddleware = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const before = await ackCount();
    try {
      const { ack, responseUrl } = await h.command('help');
      // The ack came back although the event is still held before every listener.
      expect(ack.status).toBe(200);
      expect(ack.body).toBe('');
      await inMiddleware;
      expect(h.fake.responses.some((post) => responseUrl.endsWith(post.id))).toBe(false);
      open();
      const reply = await responseTo(responseUrl);
      expect(JSON.stringify(reply.body)).toContain('/edge');
      // Timed once, where it happens.
      expect(await ackCount()).toBe(before + 1);
    } finally {
      open();
      gate = undefined;
      reached = undefined;
    }
  });

  // Last in this file: the listener it adds stays registered.
  it('refuses a listener that would acknowledge it with a body, and says why in the log', async () => {
    h.slack.app.command('/edge', async ({ ack, command }) => {
      if (command.text === 'ack with a body') await ack({ text: 'too late for this' });
    });
    const { ack, responseUrl } = await h.command('ack with a body');
    expect(ack.status).toBe(200);
    expect(ack.body).toBe('');
    await expect
      .poll(() => h.logs.join('\n'), { timeout: 5_000 })
      .toContain('/edge is acknowledged on arrival: its listener cannot ack with a body');
    // The bot's own listener still answered the command (it does not know it), beside the refusal.
    expect(JSON.stringify((await responseTo(responseUrl)).body)).toContain('is not a command');
  });
});
