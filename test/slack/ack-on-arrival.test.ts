import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SIGNING_SECRET, startHarness } from '../support/harness.js';
import { blockActions, slashCommand } from '../support/payloads.js';
import { signSlackRequest } from '../support/signer.js';

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
  const metrics = await (await fetch(`${h.metricsUrl}/metrics`)).text();
  return Number(/^edgeops_ack_seconds_count (\d+)$/m.exec(metrics)?.[1] ?? Number.NaN);
};

/**
 * Sends a signed request from a child process while this thread (the bot's app, its listeners,
 * its event loop) is held by spawnSync until the child has its answer: what came back is what the
 * bot's HTTP thread answered alone.
 */
function sendWhileHeld(payload: { body: string; contentType: string }): unknown {
  const headers = signSlackRequest({ signingSecret: SIGNING_SECRET, ...payload });
  const send = `
    fetch(process.argv[1], { method: 'POST', headers: JSON.parse(process.argv[2]), body: process.argv[3],
      signal: AbortSignal.timeout(5000) })
      .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })))
      .catch((e) => console.log(JSON.stringify({ error: String(e) })));`;
  const child = spawnSync(
    process.execPath,
    ['-e', send, `${h.baseUrl}/slack/events`, JSON.stringify(headers), payload.body],
    { encoding: 'utf8', timeout: 15_000 },
  );
  return JSON.parse(child.stdout);
}

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

  it('is acknowledged by its own thread while the main thread, where the app runs, cannot run at all', async () => {
    const responseUrl = h.fake.responseUrl();
    const before = await ackCount();
    expect(sendWhileHeld(slashCommand({ text: 'help', responseUrl }))).toEqual({ status: 200, body: '' });
    // Once this thread runs again, the app hears of the command and answers it.
    expect(JSON.stringify((await responseTo(responseUrl)).body)).toContain('/edge');
    expect(await ackCount()).toBe(before + 1);
  });

  it('acknowledges a click by its own thread too while the main thread cannot run, and runs it after', async () => {
    const responseUrl = h.fake.responseUrl();
    const before = await ackCount();
    expect(sendWhileHeld(blockActions({ actionId: 'edge:run', value: 'help', responseUrl }))).toEqual({
      status: 200,
      body: '',
    });
    expect(JSON.stringify((await responseTo(responseUrl)).body)).toContain('/edge');
    // Timed once, on arrival: the listener's own ack is the no-op of an event acknowledged already.
    expect(await ackCount()).toBe(before + 1);
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
