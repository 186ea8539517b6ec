import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { App, Logger, ReceiverEvent } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { type PreparedAckThread, prepareAckThread } from '../../src/slack/receivers/ack-thread-start.js';
import { ThreadedHttpReceiver } from '../../src/slack/receivers/threaded-receiver.js';
import { slashCommand } from '../support/payloads.js';
import { postSigned, signSlackRequest } from '../support/signer.js';

const SECRET = 'threaded-receiver-test-secret';

const logs: string[] = [];
const logger: Logger = {
  debug: () => undefined,
  info: (...args) => logs.push(args.join(' ')),
  warn: (...args) => logs.push(args.join(' ')),
  error: (...args) => logs.push(args.join(' ')),
  setLevel: () => undefined,
  getLevel: () => 'info' as never,
  setName: () => undefined,
};

const started: ThreadedHttpReceiver[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((receiver) => receiver.stop()));
  logs.length = 0;
});

interface ReceiverTestOptions {
  ended?: Error[];
  maxWaiting?: number;
  /** Bolt's unhandled-request timeout; Slack's 3 s by default. */
  unhandledMs?: number;
  /** When the thread answers a request nobody answered (6 s by default). */
  lastAnswerMs?: number;
  /** When the thread drops a request whose body is still arriving (3 s by default). */
  bodyDeadlineMs?: number;
  /** How often counted warnings are logged (10 s by default). */
  reportEveryMs?: number;
  /** A thread started ahead, for start() to take over. */
  thread?: PreparedAckThread;
}

function receiverFor(
  processEvent: (event: ReceiverEvent) => Promise<void>,
  options: ReceiverTestOptions = {},
) {
  const receiver = new ThreadedHttpReceiver({
    signingSecret: SECRET,
    endpoint: '/slack/events',
    routes: [
      {
        path: '/healthz',
        methods: ['GET'],
        answer: async () => ({ status: 200, body: 'ok\n', contentType: 'text/plain' }),
      },
      {
        path: '/broken',
        methods: ['GET'],
        answer: async () => {
          throw new Error('the route broke');
        },
      },
      {
        path: '/stuck',
        methods: ['GET'],
        answer: () => new Promise(() => undefined),
      },
    ],
    logger,
    commands: ['/edge'],
    observe: () => undefined,
    unhandledRequestTimeoutMillis: options.unhandledMs ?? 3001,
    onEnded: (error) => options.ended?.push(error),
    maxWaiting: options.maxWaiting,
    lastAnswerMs: options.lastAnswerMs,
    bodyDeadlineMs: options.bodyDeadlineMs,
    reportEveryMs: options.reportEveryMs,
    thread: options.thread,
  });
  receiver.init({ processEvent } as unknown as App);
  return receiver;
}

async function start(receiver: ThreadedHttpReceiver, port = 0) {
  const { port: bound } = await receiver.start(port);
  started.push(receiver);
  return `http://127.0.0.1:${bound}`;
}

/**
 * A receiver that lets one event wait for the main thread at most, whose first event is held
 * there until `release()`; the others are acknowledged by their listener. `heard`: each event's
 * command text, or its type when it has none.
 */
async function startHeldAfterFirst() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const heard: string[] = [];
  const url = await start(
    receiverFor(
      async (event) => {
        const body = event.body as { type?: string; text?: string };
        heard.push(String(body.text ?? body.type));
        if (heard.length === 1) await held;
        else await event.ack();
      },
      { maxWaiting: 1 },
    ),
  );
  return { url, heard, release };
}

/** A started receiver whose app only keeps the events it is given. */
async function startHearing(options: ReceiverTestOptions = {}) {
  const heard: ReceiverEvent[] = [];
  const url = await start(
    receiverFor(async (event) => {
      heard.push(event);
    }, options),
  );
  return { url, heard };
}

/** A view_submission payload: neither a slash command nor a click, so its listener acknowledges it. */
const interactive = (type = 'view_submission') => {
  const payload = JSON.stringify({ type, actions: [] });
  return {
    body: `payload=${encodeURIComponent(payload)}`,
    contentType: 'application/x-www-form-urlencoded',
  };
};

/** A raw connection to a started receiver, keeping what it answers, for requests sent by hand. */
async function rawConnection(url: string) {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  let failure: string | undefined;
  socket.on('error', (error: NodeJS.ErrnoException) => {
    failure = error.code;
  });
  await once(socket, 'connect');
  let answered = '';
  socket.on('data', (chunk: Buffer) => {
    answered += chunk.toString();
  });
  // Not events.once: it rejects on an error before the close, and a reset is a close here too.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, closed, answered: () => answered, failure: () => failure };
}

/** A signed interactive request's head (with `extra` headers) and the first 10 characters of its body. */
function signedStart(extra = '') {
  const { body, contentType } = interactive();
  const headers = signSlackRequest({ signingSecret: SECRET, body, contentType });
  const head =
    `POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}` +
    `${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;
  return { start: head + body.slice(0, 10), rest: body.slice(10) };
}

describe('the receiving thread', () => {
  it('answers an event with the body its listener on the main thread acknowledged it with', async () => {
    const url = await start(
      receiverFor(async (event) => {
        await event.ack({ response_action: 'errors', errors: { name: 'taken' } });
      }),
    );
    const response = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ response_action: 'errors', errors: { name: 'taken' } });
  });

  it('answers 500 when the app throws before acknowledging, and 401 for an authorization error, as Bolt does', async () => {
    let code: string | undefined;
    const url = await start(
      receiverFor(async () => {
        throw Object.assign(new Error('nope'), { code });
      }),
    );
    const failed = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(failed.status).toBe(500);
    code = 'slack_bolt_authorization_error';
    const unauthorized = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(unauthorized.status).toBe(401);
  });

  it('acknowledges /edge itself, so an app that never acknowledges still answers it at once', async () => {
    const { url, heard } = await startHearing();
    const response = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
      signingSecret: SECRET,
    });
    expect(response).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => heard.length).toBe(1);
    // The listener's ack is the no-op of an event acknowledged already, and refuses a body.
    await expect(heard[0]!.ack({ text: 'late' } as never)).rejects.toThrow(/acknowledged on arrival/);
  });

  it('acknowledges a click itself, with no body, so an app that never acknowledges still answers it at once', async () => {
    const { url, heard } = await startHearing();
    const response = await postSigned(`${url}/slack/events`, interactive('block_actions'), {
      signingSecret: SECRET,
    });
    expect(response).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => heard.length).toBe(1);
    await expect(heard[0]!.ack({ text: 'late' } as never)).rejects.toThrow(/acknowledged on arrival/);
  });

  it('leaves a click to its listener’s ack while too many wait for the main thread, instead of dropping it', async () => {
    const { url, heard, release } = await startHeldAfterFirst();
    expect(
      await postSigned(`${url}/slack/events`, slashCommand({ text: 'first' }), { signingSecret: SECRET }),
    ).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => heard).toEqual(['first']);
    const click = await postSigned(`${url}/slack/events`, interactive('block_actions'), {
      signingSecret: SECRET,
    });
    expect(click).toMatchObject({ status: 200, body: '' });
    // Answered by its listener's ack on the main thread, past the commands waiting there.
    expect(heard).toEqual(['first', 'block_actions']);
    release();
  });

  it('answers a command as busy, running nothing, while too many wait for the main thread', async () => {
    const { url, heard, release } = await startHeldAfterFirst();
    const edge = (text: string) =>
      postSigned(`${url}/slack/events`, slashCommand({ text }), { signingSecret: SECRET });
    expect(await edge('first')).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => heard).toEqual(['first']);
    const busy = await edge('second');
    expect(busy.status).toBe(200);
    expect(JSON.parse(busy.body)).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.parse(busy.body).text).toContain('was not run. Try it again in a minute.');
    await expect.poll(() => logs.join('\n')).toContain('1 command(s) answered as busy');
    // Once the first is done, the next is taken again.
    release();
    await expect.poll(async () => (await edge('third')).body, { interval: 50, timeout: 5_000 }).toBe('');
    await expect.poll(() => heard).toEqual(['first', 'third']);
  });

  it('takes a retry header that is not a number (Slack does not sign it) as no retry, and loses nothing', async () => {
    const { url, heard } = await startHearing({ maxWaiting: 1 });
    const edge = (retry: string) =>
      postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
        signingSecret: SECRET,
        headers: { 'x-slack-retry-num': retry },
      });
    expect(await edge('x')).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => heard.length).toBe(1);
    expect(heard[0]!.retryNum).toBeUndefined();
    // Its slot was given back: the next command is taken, not answered as busy.
    await expect.poll(async () => (await edge('')).body, { interval: 50, timeout: 5_000 }).toBe('');
    await expect.poll(() => heard.length).toBe(2);
  });

  it('outlives a signed request that makes Bolt throw where nothing awaits it, and answers it 500', async () => {
    const ended: Error[] = [];
    const url = await start(receiverFor(async (event) => event.ack(), { ended, lastAnswerMs: 1_200 }));
    // A signed JSON `null`: Bolt reads body.ssl_check of it and throws, and never answers.
    const refused = await postSigned(`${url}/slack/events`, 'null', {
      signingSecret: SECRET,
      contentType: 'application/json',
      signal: AbortSignal.timeout(5_000),
    });
    expect(refused.status).toBe(500);
    expect(logs.join('\n')).toContain('in the HTTP thread');
    expect(logs.join('\n')).toContain('POST /slack/events had no answer after 1200 ms; answered 500');
    const after = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(after.status).toBe(200);
    expect(ended).toHaveLength(0);
  });

  it('still delivers the ack of an event in flight when it is stopped', async () => {
    let reached!: () => void;
    const inListener = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const receiver = receiverFor(async (event) => {
      reached();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await event.ack({ response_action: 'clear' });
    });
    const url = await start(receiver);
    const pending = postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    await inListener;
    const stopped = receiver.stop();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ response_action: 'clear' });
    await stopped;
  });

  it('refuses an unsigned request in its thread, and logs why through the main thread', async () => {
    const { url, heard } = await startHearing();
    const response = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
      signingSecret: 'not-the-secret',
    });
    expect(response.status).toBe(401);
    await expect
      .poll(() => logs.join('\n'))
      .toContain('the latest: Failed to parse and verify the request data');
    expect(heard).toHaveLength(0);
  });

  it('serves the routes the main thread answers, and stops listening on stop', async () => {
    const receiver = receiverFor(async () => undefined);
    const url = await start(receiver);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok\n');
    await receiver.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('answers 500 for a route that fails on the main thread, and logs its message', async () => {
    const url = await start(receiverFor(async () => undefined));
    expect((await fetch(`${url}/broken`)).status).toBe(500);
    await expect.poll(() => logs.join('\n')).toContain('the /broken route failed: the route broke');
  });

  it('answers 500 for a route the main thread does not answer in time, and logs it', async () => {
    const url = await start(receiverFor(async () => undefined, { lastAnswerMs: 1_200 }));
    const stuck = await fetch(`${url}/stuck`, { signal: AbortSignal.timeout(5_000) });
    expect(stuck.status).toBe(500);
    expect(logs.join('\n')).toContain('GET /stuck had no answer after 1200 ms; answered 500');
    logs.length = 0;
    // A route that answers in time is not touched by it, then or later.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(logs.join('\n')).not.toMatch(/had no answer|HTTP thread/);
  });

  it('drops, unread and unrun, a request whose body is still arriving when Slack would have given up', async () => {
    // The answer's deadline is far off: the drop is the body's own deadline, Slack's 3 s in production.
    const { url, heard } = await startHearing({ bodyDeadlineMs: 600, lastAnswerMs: 20_000 });
    const { socket, closed, answered } = await rawConnection(url);
    const request = signedStart();
    const sentAt = performance.now();
    socket.write(request.start);
    // The rest of the body comes after the deadline: too late, it is never read.
    const rest = setTimeout(() => socket.write(request.rest), 900);
    await closed;
    clearTimeout(rest);
    // Closed at the body's deadline, not the answer's, and without an answer: no 500 that Slack
    // would retry while a late body ran anyway.
    expect(performance.now() - sentAt).toBeLessThan(10_000);
    expect(answered()).toBe('');
    await expect.poll(() => logs.join('\n')).toContain('1 request(s) dropped unread');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(heard).toHaveLength(0);
    expect(logs.join('\n')).not.toContain('had no answer');
    // Counted once, as dropped: Bolt's word that the body was aborted is not a second, refused, one.
    expect(logs.join('\n')).not.toContain('refused by the HTTP receiver');
  });

  it('closes, within the body’s deadline, a connection whose headers trickle in', async () => {
    const url = await start(receiverFor(async () => undefined, { bodyDeadlineMs: 600 }));
    const { socket, closed, answered, failure } = await rawConnection(url);
    const sentAt = performance.now();
    socket.write('POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One more header line every 200 ms: never a whole request.
    const trickle = setInterval(() => {
      if (answered() === '' && socket.writable) socket.write('X-Trickle: 1\r\n', () => undefined);
    }, 200);
    socket.once('end', () => clearInterval(trickle));
    await closed;
    clearInterval(trickle);
    // Node's own default holds such a connection for a minute.
    expect(performance.now() - sentAt).toBeLessThan(10_000);
    // A header line sent while the 408 was on its way meets a closed socket, which answers it with
    // a reset that may discard the 408 unread (seen on a busy machine): the server closed it all the same.
    if (answered() === '') expect(failure()).toBe('ECONNRESET');
    else expect(answered()).toMatch(/^HTTP\/1.1 408 /);
    await expect.poll(() => logs.join('\n')).toContain('1 connection(s) closed before a request was read');
  });

  it('runs a request whose body came in time, however slowly', async () => {
    const { url, heard } = await startHearing({ bodyDeadlineMs: 1_500 });
    const { socket } = await rawConnection(url);
    const request = signedStart('Connection: close\r\n');
    socket.write(request.start);
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(request.rest);
    await expect.poll(() => heard.length).toBe(1);
    socket.destroy();
    expect(logs.join('\n')).not.toContain('dropped unread');
  });

  it('counts the requests anyone can have refused instead of logging each, and logs the count when they stop', async () => {
    const { url, heard } = await startHearing({ reportEveryMs: 800 });
    const refusals = () => logs.filter((line) => line.includes('refused by the HTTP receiver'));
    for (let i = 0; i < 20; i++) {
      const response = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
        signingSecret: 'not-the-secret',
      });
      expect(response.status).toBe(401);
    }
    // The first at once, with Bolt's reason; the other 19 as one count at the window's end.
    expect(refusals()[0]).toMatch(
      /^1 request\(s\) refused by the HTTP receiver; the latest: Failed to parse and verify the request data/,
    );
    await expect.poll(() => refusals().length, { timeout: 3_000 }).toBe(2);
    expect(refusals()[1]).toMatch(/^19 request\(s\) refused/);
    expect(logs.filter((line) => line.startsWith('Failed to parse and verify'))).toEqual([]);
    expect(heard).toHaveLength(0);
  });

  it('closes quietly a connection that sent nothing at all (opened ahead by a proxy)', async () => {
    const url = await start(receiverFor(async () => undefined, { bodyDeadlineMs: 600 }));
    const { closed, answered } = await rawConnection(url);
    await closed;
    expect(answered()).toBe('');
    // Counted apart, so that a flood of them is still seen, but not as broken requests.
    await expect
      .poll(() => logs.join('\n'))
      .toContain('1 connection(s) closed that sent nothing within 600 ms');
    expect(logs.join('\n')).not.toContain('closed before a request was read');
  });

  it('counts a malformed request pipelined behind one still waiting for its answer', async () => {
    const url = await start(receiverFor(async () => undefined));
    const { socket, closed } = await rawConnection(url);
    socket.write('GET /stuck HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n');
    await closed;
    await expect.poll(() => logs.join('\n')).toContain('1 connection(s) closed before a request was read');
  });

  it('matches the events path as Bolt does, so a dropped body there is counted once', async () => {
    const { url } = await startHearing({ bodyDeadlineMs: 600 });
    const { socket, closed } = await rawConnection(url);
    socket.write(signedStart().start.replace('POST /slack/events', 'POST /slack/./events'));
    await closed;
    await expect.poll(() => logs.join('\n')).toContain('1 request(s) dropped unread');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logs.join('\n')).not.toContain('refused by the HTTP receiver');
  });

  it('counts each kind of refusal on its own, so a flood of one never hides another', async () => {
    const { url } = await startHearing({ reportEveryMs: 60_000 });
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/wp-login.php`)).status).toBe(404);
    const signed = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
      signingSecret: 'a-rotated-secret',
    });
    expect(signed.status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/.env`)).status).toBe(404);
    const said = () => logs.filter((line) => line.includes('refused by the HTTP receiver')).join('\n');
    await expect.poll(said).toContain('the latest: Failed to parse and verify the request data');
    expect(said()).toContain('the latest: Unhandled HTTP request (GET) made to /wp-login.php');
  });

  it('logs what it had counted when it stops, not only at the end of a window', async () => {
    const receiver = receiverFor(async () => undefined, { reportEveryMs: 60_000 });
    const url = await start(receiver);
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    await receiver.stop();
    const counts = logs
      .filter((line) => line.includes('refused by the HTTP receiver'))
      .map((line) => line.split(' ')[0]);
    expect(counts).toEqual(['1', '4']);
  });

  it('delivers a workflow function’s late ack within Bolt’s longer wait for it', async () => {
    const event = { type: 'function_executed', function_execution_id: 'Fx1', inputs: {} };
    const body = JSON.stringify({ type: 'event_callback', team_id: 'T0EDGE', api_app_id: 'A0EDGE', event });
    let late!: Promise<void>;
    const url = await start(
      receiverFor(
        async (received) => {
          // Past the 300 ms for other events, within Bolt's 5 s for this one.
          late = new Promise((resolve) => setTimeout(resolve, 800)).then(() => received.ack());
        },
        { unhandledMs: 300 },
      ),
    );
    const response = await postSigned(
      `${url}/slack/events`,
      { body, contentType: 'application/json' },
      { signingSecret: SECRET, signal: AbortSignal.timeout(4_000) },
    );
    expect(response.status).toBe(200);
    await late;
    expect(logs.join('\n')).not.toContain("a listener's ack");
  });

  it('delivers an ack its listener sends after it returned, within Bolt’s time, as one thread would', async () => {
    const url = await start(
      receiverFor(async (event) => {
        setTimeout(() => void event.ack({ response_action: 'clear' }), 200);
      }),
    );
    const response = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ response_action: 'clear' });
    expect(logs.join('\n')).not.toContain("a listener's ack could not be sent");
  });

  it('logs an ack that comes after its listener returned and Bolt stopped waiting, instead of losing it silently', async () => {
    let late!: Promise<void>;
    const url = await start(
      receiverFor(
        async (event) => {
          late = new Promise((resolve) => setTimeout(resolve, 700)).then(() => event.ack());
        },
        { unhandledMs: 300 },
      ),
    );
    const response = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(response.status).not.toBe(200);
    await late;
    await expect
      .poll(() => logs.join('\n'))
      .toContain("a listener's ack came after Bolt had stopped waiting for it");
  });

  it('logs a listener ack that comes after Bolt has given up on the request', async () => {
    let late!: Promise<void>;
    const url = await start(
      receiverFor(
        async (event) => {
          late = new Promise((resolve) => setTimeout(resolve, 300)).then(() => event.ack());
          await late;
        },
        { unhandledMs: 100 },
      ),
    );
    const response = await postSigned(`${url}/slack/events`, interactive(), { signingSecret: SECRET });
    expect(response.status).not.toBe(200);
    await late;
    await expect.poll(() => logs.join('\n')).toContain("a listener's ack could not be sent");
  });

  it('lets a command it acknowledged run to its end before it stops', async () => {
    const steps: string[] = [];
    const receiver = receiverFor(async () => {
      steps.push('started');
      await new Promise((resolve) => setTimeout(resolve, 300));
      steps.push('ended');
    });
    const url = await start(receiver);
    const ack = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
      signingSecret: SECRET,
    });
    expect(ack).toMatchObject({ status: 200, body: '' });
    await expect.poll(() => steps).toEqual(['started']);
    await receiver.stop();
    steps.push('stopped');
    expect(steps).toEqual(['started', 'ended', 'stopped']);
  });

  it('stops promptly when stopped while it starts, and the start says so', async () => {
    const receiver = receiverFor(async () => undefined);
    const starting = receiver.start(0).then(
      () => 'started',
      (error: Error) => error.message,
    );
    const stopped = performance.now();
    await receiver.stop();
    // Well inside the 5 s a stopping thread is given before it is ended.
    expect(performance.now() - stopped).toBeLessThan(3_000);
    expect(await starting).toMatch(/stopped while it started/);
  });

  it('fails to start with the reason when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    const ended: Error[] = [];
    try {
      await expect(receiverFor(async () => undefined, { ended }).start(port)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      taken.close();
    }
    expect(ended).toHaveLength(0);
  });
});

describe('a receiving thread started ahead', () => {
  it('is taken over by start(), which it then serves as a thread started there would', async () => {
    const thread = prepareAckThread();
    // Let it load before it is told to listen, as it does while main.ts loads the app.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { url, heard } = await startHearing({ thread });
    const response = await postSigned(`${url}/slack/events`, slashCommand({ text: 'help' }), {
      signingSecret: SECRET,
    });
    expect(response.status).toBe(200);
    await expect.poll(() => heard.length).toBe(1);
    // It is the receiver's thread, and no other receiver can take it: stopping the receiver ends it.
    expect(() => thread.take()).toThrow(/taken over already/);
    const exited = once(thread.worker, 'exit');
    await started.pop()!.stop();
    await exited;
  });

  it('is ended when its receiver stops before it started', async () => {
    const thread = prepareAckThread();
    const exited = once(thread.worker, 'exit');
    await receiverFor(async () => undefined, { thread }).stop();
    await exited;
  });

  it('fails the start at once, ending the thread, when the settings are not valid', async () => {
    const thread = prepareAckThread();
    const exited = once(thread.worker, 'exit');
    await expect(receiverFor(async () => undefined, { thread, maxWaiting: 0 }).start(0)).rejects.toThrow(
      /settings are not valid/,
    );
    await exited;
  });

  it('fails the start with the reason when it ended before start()', async () => {
    const thread = prepareAckThread();
    await thread.worker.terminate();
    const ended: Error[] = [];
    await expect(receiverFor(async () => undefined, { ended, thread }).start(0)).rejects.toThrow(
      /the HTTP thread ended with \d+ before it listened/,
    );
    expect(ended).toHaveLength(0);
  });

  it('does not keep a process alive that ends before it starts the receiver', () => {
    const source = fileURLToPath(new URL('../../src/slack/receivers/ack-thread-start.ts', import.meta.url));
    // The thread is still loaded and waiting 1.5 s later; then nothing else holds the process.
    const script = `import(${JSON.stringify(source)}).then(({ prepareAckThread }) => {
      const thread = prepareAckThread();
      let exited = false;
      thread.worker.on('exit', (code) => { exited = true; console.log('exit ' + code); });
      setTimeout(() => { if (!exited) console.log('alive'); }, 1500);
    });`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      timeout: 15_000,
      encoding: 'utf8',
    });
    expect(child.stdout.trim(), child.stderr).toBe('alive');
    expect(child.error).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
  });
});
