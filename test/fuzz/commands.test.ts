/**
 * Every subcommand of the registry under generated arguments, sent as signed `/edge …`
 * commands to the real app: each one gets exactly one answer, nothing escapes as an unhandled
 * error, and an input that fails validation never reaches the platform.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../src/operations/engine/types.js';
import { operations } from '../../src/operations/registry.js';
import type { RouteId } from '../../src/sandbox/router.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

const clock = pinnedClock();

/** Generated commands; each is a full round trip through Bolt, the engine and the sandbox. */
const RUNS = 400;

// Everyone may run everything: a denial must not hide how an input was parsed. Changes still
// wait for an approver, so generated input changes nothing on the platform.
const POLICY = everyoneMayRun({
  gated: [
    'pullzone.reset-key',
    'shield.bot-detection',
    'db.exec',
    'db.tokens.create',
    'db.tokens.invalidate',
  ],
});

let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({
    clock,
    sandbox,
    policyYaml: POLICY,
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

const word = (text: string) => (/[\s"'“”‘’\\]/.test(text) || text === '' ? JSON.stringify(text) : text);

// Seeded ids, but not the big pull zone and Shield zone: a million log entries per command is a benchmark.
const id = fc.constantFrom('308006', '410112', '410114', '5101', '5102', '710001', '101', '1');
const number = fc.oneof(
  fc.integer({ min: -100_000, max: 10_000_000 }).map(String),
  fc.constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', 'NaN', '0x1F', '5', '1000', '1001'),
);
const duration = fc.constantFrom('30d', '-3h', '45s', '2h', '0s', '7d', '1y', 'd', '-90m', '99999d');
const garbage = fc.oneof(
  fc.string({ maxLength: 16 }).map(word),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map(word),
  fc.constantFrom(
    '"unbalanced',
    '“curly quoted”',
    '‘single curly’',
    'don’t',
    '&amp;&lt;&gt;',
    '&lt;!channel&gt;',
    '<@U0LEAD>',
    '\u0007',
    'SELECT 1',
    'SELECT * FROM customers LIMIT 3',
    'DROP TABLE customers',
    "'; --",
    '$HOME',
    '--',
  ),
);
const unknownFlag = fc.constantFrom(
  '--colour red',
  '--page',
  '--all',
  '--x=',
  '--verify=yes',
  '-p 2',
  '--db',
);

/** A value for one of the operation's own flags, right or wrong for its kind. */
function knownFlag(op: AnyOperation): fc.Arbitrary<string> {
  const names = Object.keys(op.flags);
  if (names.length === 0) return unknownFlag;
  const value = fc.oneof(number, id, duration, garbage);
  return fc.oneof(
    fc.constantFrom(...names).map((name) => `--${name}`),
    fc.tuple(fc.constantFrom(...names), value).map(([name, v]) => `--${name} ${v}`),
    fc.tuple(fc.constantFrom(...names), value).map(([name, v]) => `--${name}=${v}`),
  );
}

/** The operation's words (any case) and an argument vector, valid-looking or garbage. */
function commandFor(op: AnyOperation): fc.Arbitrary<string> {
  const example = op.example.replace(/^\/edge\s*/, '');
  const argument = fc.oneof(
    { weight: 3, arbitrary: id },
    { weight: 2, arbitrary: number },
    { weight: 1, arbitrary: duration },
    { weight: 3, arbitrary: garbage },
    { weight: 3, arbitrary: knownFlag(op) },
    { weight: 1, arbitrary: unknownFlag },
  );
  const words = fc.boolean().map((upper) => op.words.map((w) => (upper ? w.toUpperCase() : w)).join(' '));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(example) },
    {
      weight: 2,
      arbitrary: fc.array(argument, { maxLength: 2 }).map((args) => [example, ...args].join(' ')),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(words, fc.array(argument, { maxLength: 5 }))
        .map(([head, args]) => [head, ...args].join(' ')),
    },
  );
}

/** Every subcommand, plus lines that match none. */
const commandLine = fc.oneof(
  { weight: 14, arbitrary: fc.constantFrom(...operations).chain(commandFor) },
  {
    weight: 1,
    arbitrary: fc.oneof(garbage, fc.constantFrom('', 'dnz', 'shield', 'db', 'db tokens', 'pullzone')),
  },
);

interface Sent {
  text: string;
  channelId: string;
  responseUrl: string;
  triggerId: string;
}

/** A long job's progress message, with its Cancel button: it is updated later, it is not an answer. */
const isProgress = (args: Record<string, unknown>) =>
  /"action_id":"[a-z.]+:cancel"/.test(JSON.stringify(args));

/** A progress message's last words (`…: done; the answer went to … only.`), not an answer either. */
const isProgressEnd = (text: unknown) =>
  /^(Origin errors of pull zone|Shield event export of zone) .*: (done|cancelled|failed)/.test(String(text));

/**
 * A channel message that answers: not a reply in a thread (the follow-ups of a headline are part of
 * its answer), and not a progress message, unless it became the answer's headline.
 */
function answersInChannel(call: RecordedCall): boolean {
  if (call.args.thread_ts !== undefined) return false;
  if (!isProgress(call.args)) return true;
  const now = h.fake.message(String(call.response.channel), String(call.response.ts));
  return now !== undefined && !isProgress({ blocks: now.blocks }) && !isProgressEnd(now.text);
}

/** Every answer a command got: response_url posts, channel posts, ephemerals and modals. */
function answersTo(sent: Sent): unknown[] {
  const id = sent.responseUrl.split('/').at(-1);
  return [
    ...h.fake.responses.filter((post) => post.id === id).map((post) => post.body),
    ...h.fake.calls
      .filter(
        (call) =>
          (call.method === 'chat.postMessage' &&
            call.args.channel === sent.channelId &&
            answersInChannel(call)) ||
          (call.method === 'chat.postEphemeral' &&
            call.args.channel === sent.channelId &&
            !isProgress(call.args)) ||
          (call.method === 'views.open' && call.args.trigger_id === sent.triggerId),
      )
      .map((call) => call.args),
  ];
}

/** A usage error: the engine's reply to an input that failed validation. */
const isUsageError = (answer: unknown) =>
  /"Usage: |Type `\/edge help` to see the commands/.test(JSON.stringify(answer));

/** Platform requests so far. The customer database's own routes are left out: a query's stream
 * is closed just after its answer, so its last request can land while the next command runs. */
const platformRequests = () =>
  sandbox.requests
    .all()
    .filter((request) => !request.routeId.startsWith('database.'))
    .map((request) => request.routeId as RouteId | 'unmatched');

describe('every operation through the full app under generated arguments', () => {
  it('answers each command exactly once, never throws, and calls nothing for a usage error', async () => {
    const unhandled: unknown[] = [];
    const collect = (error: unknown) => unhandled.push(error);
    process.on('unhandledRejection', collect);
    process.on('uncaughtException', collect);
    const sent: Sent[] = [];
    const usage: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(commandLine, async (text) => {
          // A channel of its own per command, so that channel posts can be attributed.
          const channelId = `C0FZ${sent.length}`;
          const before = platformRequests().length;
          const { responseUrl, triggerId, ack } = await h.command(text, { channelId });
          expect(ack.status).toBe(200);
          const entry = { text, channelId, responseUrl, triggerId };
          sent.push(entry);
          await expect
            .poll(() => answersTo(entry).length, { timeout: 10_000, interval: 10 })
            .toBeGreaterThan(0);
          const [answer] = answersTo(entry);
          expect(JSON.stringify(answer)).not.toContain('Something went wrong on our side');
          if (isUsageError(answer)) {
            usage.push(text);
            expect(platformRequests().slice(before)).toEqual([]);
          }
        }),
        { numRuns: RUNS },
      );
      // Late duplicates: give stragglers a moment, then every command must still have one answer.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const answered = sent.map((entry) => ({ text: entry.text, answers: answersTo(entry).length }));
      expect(answered.filter((entry) => entry.answers !== 1)).toEqual([]);
      expect(usage.length).toBeGreaterThan(RUNS / 10);
      expect(usage.length).toBeLessThan(sent.length - RUNS / 10);
    } finally {
      process.off('unhandledRejection', collect);
      process.off('uncaughtException', collect);
    }
    expect(unhandled).toEqual([]);
    expect(h.logs.filter((line) => line.includes('unhandled Slack listener error'))).toEqual([]);
  }, 90_000);
});
