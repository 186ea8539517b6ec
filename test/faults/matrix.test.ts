/**
 * The fault matrix: every platform operation the bot exposes, through Slack, against every way
 * the platform can fail. For each cell: what the user is shown, how often the platform was
 * called (reads retried, writes never), that /healthz still answers, and the audit row.
 *
 * The timeout column runs on a second app and sandbox of its own, whose platform client waits
 * only HEADERS_TIMEOUT_MS for response headers, concurrently with the rest.
 */
import type { ViewStateValue } from '@slack/bolt';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_FIELDS as F } from '../../src/operations/library.js';
import type { Fault } from '../../src/sandbox/faults.js';
import type { RouteId } from '../../src/sandbox/router.js';
import type { AuditRow } from '../../src/state/audit.js';
import { type Harness, startHarness } from '../support/harness.js';
import { checkboxes, numberInput, staticSelect, textInput } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';

/** What the slow app's client waits for response headers; a delay well beyond it is a timeout. */
const HEADERS_TIMEOUT_MS = 1_000;
// undici's timers are coarse (about half a second), so the delay leaves a wide margin.
const TIMEOUT_DELAY_MS = HEADERS_TIMEOUT_MS + 3_000;
/** Tries a read gets (PRODUCT §6). */
const READ_ATTEMPTS = 3;

// Everyone may run everything; key resets and token changes wait for one lead, bot detection does not.
const POLICY = everyoneMayRun({ gated: ['pullzone.reset-key', 'db.tokens.create', 'db.tokens.invalidate'] });

/** Platform text with Slack markup in it: it must reach people escaped, pinging nobody. */
const REFUSAL = 'Refused by the fault matrix <!channel> & co';
const REFUSED = /Refused by the fault matrix/;

interface CaseContext {
  h: Harness;
  channelId: string;
  userId: string;
  responseUrls: string[];
  /** Audit rows up to this id belong to earlier steps (the command that opened a form or asked). */
  auditFloor: number;
  command(text: string): Promise<string>;
  /** Waits for the audit row that ends the step so far; the cell's outcome is the next one. */
  settle(operation: string): Promise<void>;
}

interface BadRequest {
  shape: string;
  body: unknown;
  message: RegExp;
}

interface OperationSpec {
  name: string;
  /** The operation id its audit rows carry. */
  operation: string;
  route: RouteId;
  read: boolean;
  /** A success the bot does not read (204): a cut or garbled body still means the change was made. */
  bodyIgnored?: boolean;
  /** The body is streamed into a report after the call has returned: a fault inside it is not retried. */
  streamed?: boolean;
  notFound: RegExp;
  badRequests: BadRequest[];
  /** Asks for the operation as a person would; the runner then waits for the outcome. */
  start(c: CaseContext): Promise<void>;
}

type Expectation =
  | { outcome: 'failed'; message: RegExp; unexpected: boolean; retried: boolean; detail: RegExp }
  | { outcome: 'succeeded'; message: RegExp };

interface FaultSpec {
  name: string;
  /** `times` is filled in by the runner with the number of tries expected. */
  fault(op: OperationSpec): Omit<Fault, 'times'>;
  expect(op: OperationSpec): Expectation;
  slow?: boolean;
}

// ---------------------------------------------------------------- how each operation is asked for

const apiErrorData: BadRequest = {
  shape: 'ApiErrorData',
  body: { ErrorKey: 'fault.matrix', Field: 'Name', Message: REFUSAL },
  message: /Refused by the fault matrix.*Field: Name\. \(fault\.matrix\)/,
};

async function openedView(c: CaseContext, text: string): Promise<string> {
  const trigger = await c.command(text);
  const opened = await c.h.fake.waitFor('views.open', (call) => call.args.trigger_id === trigger, 10_000);
  const view = opened.args.view as { private_metadata?: unknown };
  return String(view.private_metadata);
}

/** Sends the gated command, then approves its request as the lead. */
async function requestAndApprove(c: CaseContext, operation: string, text: string): Promise<void> {
  await c.command(text);
  const note = await c.h.fake.waitForResponse((post) => c.responseUrls.at(-1)!.endsWith(post.id), 10_000);
  const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(note.body))?.[0];
  if (!id) throw new Error(`no approval request: ${JSON.stringify(note.body).slice(0, 300)}`);
  await c.settle(operation);
  const responseUrl = c.h.fake.responseUrl();
  await c.h.click('approvals:approve', id, { userId: 'U0LEAD', channelId: 'C0APPROVALS', responseUrl });
}

const libraryForm: Record<string, ViewStateValue> = {
  [F.name]: textInput('Fault matrix'),
  [F.regions]: { type: 'multi_static_select', selected_options: [] },
  [F.playerVersion]: numberInput(null),
  [F.tier]: staticSelect('free', 'Free'),
  [F.jit]: checkboxes([]),
  [F.codecs]: checkboxes(['x264']),
  [F.resolutions]: checkboxes(['720p']),
  [F.playback]: checkboxes([]),
  [F.transcribing]: checkboxes([]),
  [F.captionLanguages]: { type: 'multi_static_select', selected_options: [] },
  [F.smart]: checkboxes([]),
};

const botDetectionForm: Record<string, ViewStateValue> = {
  executionMode: staticSelect('1'),
  requestIntegrity: staticSelect('2'),
  ipAddress: staticSelect('1'),
  fingerprint: staticSelect('3'),
  aggression: staticSelect('2'),
  complex: checkboxes(['on']),
};

const OPERATIONS: OperationSpec[] = [
  {
    name: 'apikeys',
    operation: 'apikey.list',
    route: 'apikey.list',
    read: true,
    notFound: /HTTP 404/,
    badRequests: [apiErrorData],
    start: async (c) => void (await c.command('apikeys')),
  },
  {
    name: 'dns',
    operation: 'dns.list',
    route: 'dnszone.list',
    read: true,
    notFound: /HTTP 404/,
    badRequests: [apiErrorData],
    start: async (c) => void (await c.command('dns')),
  },
  {
    name: 'shield enums',
    operation: 'shield.enums',
    route: 'shield.wafEnums',
    read: true,
    notFound: /HTTP 404/,
    badRequests: [
      { shape: 'status object', body: { statusCode: 400 }, message: /refused the request \(HTTP 400\)/ },
    ],
    start: async (c) => void (await c.command('shield enums')),
  },
  {
    name: 'logs',
    operation: 'logs.origin',
    route: 'logs.origin',
    read: true,
    streamed: true,
    notFound:
      /No pull zone 410112 was found on the platform\. Check the id, or find it with \/edge pullzones\./,
    badRequests: [apiErrorData],
    start: async (c) => void (await c.command('logs 410112')),
  },
  {
    name: 'shield export',
    operation: 'shield.export',
    route: 'shield.export',
    read: true,
    streamed: true,
    notFound:
      /No Shield zone 5101 was found on the platform\. Check the id, or find it with \/edge shield zones\./,
    badRequests: [
      {
        shape: 'problem document',
        body: {
          type: 'https://problems.example/validation',
          title: 'Bad Request',
          status: 400,
          detail: REFUSAL,
          instance: '/shield/event-logs/5101/export',
        },
        message: REFUSED,
      },
    ],
    start: async (c) => void (await c.command('shield export 5101 --last 1h')),
  },
  {
    name: 'library create (form)',
    operation: 'library.create',
    route: 'videolibrary.create',
    read: false,
    notFound: /No video library was found on the platform/,
    badRequests: [apiErrorData],
    async start(c) {
      const metadata = await openedView(c, 'library create Fault matrix');
      await c.settle('library.create');
      await c.h.submitView('library.create:form', metadata, libraryForm, { userId: c.userId });
    },
  },
  {
    name: 'shield bot-detection (direct)',
    operation: 'shield.bot-detection',
    route: 'shield.botDetection',
    read: false,
    notFound:
      /No Shield zone 5101 was found on the platform\. Check the id, or find it with \/edge shield zones\./,
    badRequests: [
      {
        shape: 'problem document',
        body: {
          type: 'https://problems.example/validation',
          title: 'Bad Request',
          status: 400,
          detail: REFUSAL,
          instance: '/shield/shield-zone/5101/bot-detection',
        },
        message: REFUSED,
      },
      {
        shape: 'Shield envelope',
        body: {
          error: { success: false, message: REFUSAL, errorKey: 'validation.fault_matrix' },
          data: null,
        },
        message: /Refused by the fault matrix.*\(validation\.fault_matrix\)/,
      },
    ],
    async start(c) {
      const metadata = await openedView(c, 'shield bot-detection 5101');
      await c.settle('shield.bot-detection');
      await c.h.submitView('shield.bot-detection:submit', metadata, botDetectionForm, { userId: c.userId });
    },
  },
  {
    name: 'pullzone reset-key (approved)',
    operation: 'pullzone.reset-key',
    route: 'pullzone.resetSecurityKey',
    read: false,
    bodyIgnored: true,
    notFound: /No pull zone 410112 was found on the platform/,
    badRequests: [apiErrorData],
    start: (c) => requestAndApprove(c, 'pullzone.reset-key', 'pullzone reset-key 410112 fault matrix'),
  },
  {
    name: 'db tokens create (approved)',
    operation: 'db.tokens.create',
    route: 'database.tokens.generate',
    read: false,
    notFound: /HTTP 404|was not found|No database .* was found/,
    badRequests: [
      {
        shape: 'database {error}',
        body: { error: REFUSAL, details: 'injected' },
        message: /The database API said: Refused by the fault matrix/,
      },
    ],
    start: (c) =>
      requestAndApprove(c, 'db.tokens.create', `db tokens create --read-only --db ${c.h.sandbox.databaseId}`),
  },
  {
    name: 'db tokens invalidate (approved)',
    operation: 'db.tokens.invalidate',
    route: 'database.tokens.revoke',
    read: false,
    bodyIgnored: true,
    notFound: /HTTP 404|was not found|No database .* was found/,
    badRequests: [
      {
        shape: 'database {error}',
        body: { error: REFUSAL, details: 'injected' },
        message: /The database API said: Refused by the fault matrix/,
      },
    ],
    start: (c) =>
      requestAndApprove(c, 'db.tokens.invalidate', `db tokens invalidate --db ${c.h.sandbox.databaseId}`),
  },
];

// ---------------------------------------------------------------- the ways the platform fails

const failed = (
  message: RegExp,
  detail: RegExp,
  options: { unexpected?: boolean; retried?: boolean } = {},
): Expectation => ({
  outcome: 'failed',
  message,
  detail,
  unexpected: options.unexpected ?? false,
  retried: options.retried ?? false,
});

/** A garbled or cut 2xx: a failure, unless the bot never reads that body. */
const garbled = (op: OperationSpec, message: RegExp, retried: boolean): Expectation =>
  op.bodyIgnored
    ? { outcome: 'succeeded', message: /done/ }
    : failed(message, /network|invalid-response|could not be read|Could not reach/, {
        unexpected: true,
        retried,
      });

const FAULTS: FaultSpec[] = [
  {
    name: '401',
    fault: () => ({ status: 401 }),
    expect: () => failed(/refused the API key \(HTTP 401\).*PLATFORM_API_KEY/, /unauthorized|401/),
  },
  {
    name: '404',
    fault: () => ({ status: 404 }),
    expect: (op) => failed(op.notFound, /not-found|404|not found|No .* was found/),
  },
  {
    name: '429 Retry-After 1',
    fault: () => ({ status: 429, retryAfter: 1 }),
    expect: () =>
      failed(/rate limiting requests \(HTTP 429\)\. Try again in 1 s/, /rate-limited|429/, { retried: true }),
  },
  {
    name: '500',
    fault: () => ({ status: 500 }),
    expect: () => failed(/The platform failed \(HTTP 500\)/, /500/, { unexpected: true, retried: true }),
  },
  {
    name: '503',
    fault: () => ({ status: 503 }),
    expect: () => failed(/The platform failed \(HTTP 503\)/, /503/, { unexpected: true, retried: true }),
  },
  {
    name: 'timeout',
    slow: true,
    fault: () => ({ delayMs: TIMEOUT_DELAY_MS }),
    expect: () =>
      failed(/Could not reach the platform \(the platform did not answer in time\)/, /network|in time/, {
        unexpected: true,
        retried: true,
      }),
  },
  {
    name: 'connection reset',
    fault: () => ({ drop: true }),
    expect: () =>
      failed(/Could not reach the platform/, /network|Could not reach/, { unexpected: true, retried: true }),
  },
  {
    name: 'truncated body',
    fault: () => ({ truncate: true }),
    expect: (op) => garbled(op, /Could not reach the platform|could not be read/, !op.streamed),
  },
  {
    name: 'malformed JSON',
    fault: () => ({ malformedJson: true }),
    // A streamed body is read by its report's own parser: the origin-log JSON, or the export's CSV.
    expect: (op) =>
      garbled(
        op,
        // The report's own error says what to do, as the platform's does.
        op.streamed
          ? /(could not be read|not a readable CSV).*Try again; if it persists, report it with the correlation id/
          : /could not be read \(malformed JSON\)/,
        false,
      ),
  },
];

/** Every cell: the 400 shapes an operation's route can produce, then the common faults. */
function cells(op: OperationSpec): FaultSpec[] {
  const badRequests = op.badRequests.map(
    (bad): FaultSpec => ({
      name: `400 ${bad.shape}`,
      fault: () => ({ status: 400, body: bad.body }),
      expect: () => failed(bad.message, /Refused by the fault matrix|400/),
    }),
  );
  return [...badRequests, ...FAULTS];
}

// ---------------------------------------------------------------- running one cell

const collectText = (value: unknown, out: string[]): void => {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectText(item, out);
  else if (typeof value === 'object' && value !== null)
    for (const child of Object.values(value)) collectText(child, out);
};

/** Everything shown to this cell's user: answers to its commands, its channel, its DMs. */
function shownTo(c: CaseContext): string[] {
  const { fake } = c.h;
  const payloads: unknown[] = [];
  for (const post of fake.responses)
    if (c.responseUrls.some((url) => url.endsWith(`/${post.id}`))) payloads.push(post.body);
  const dm = fake.dmChannelFor(c.userId);
  for (const call of fake.calls)
    if (
      (call.method === 'chat.postMessage' || call.method === 'chat.postEphemeral') &&
      (call.args.channel === c.channelId || call.args.channel === dm)
    )
      payloads.push(call.args);
  return payloads.map((payload) => {
    const out: string[] = [];
    collectText(payload, out);
    return out.join('\n');
  });
}

const FINAL_OUTCOMES = new Set(['failed', 'succeeded', 'requested', 'error', 'refused', 'denied', 'unknown']);

/** The oldest row after the floor that closes this cell's operation in its channel. */
async function finalAuditRow(c: CaseContext, operation: string): Promise<AuditRow | undefined> {
  const rows = await c.h.runtime.services.audit.list({ limit: 1000 });
  return rows.findLast(
    (row) =>
      row.id > c.auditFloor &&
      row.channelId === c.channelId &&
      row.operation === operation &&
      FINAL_OUTCOMES.has(row.outcome),
  );
}

async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let cellNumber = 0;

/** Runs one cell and returns what was wrong with it (nothing, when it behaved). */
async function runCell(h: Harness, op: OperationSpec, spec: FaultSpec): Promise<string[]> {
  const n = ++cellNumber;
  const c: CaseContext = {
    h,
    channelId: `C0FM${n}`,
    userId: `U0FM${n}`,
    responseUrls: [],
    auditFloor: 0,
    async command(text) {
      const { responseUrl, triggerId } = await h.command(text, { channelId: c.channelId, userId: c.userId });
      c.responseUrls.push(responseUrl);
      return triggerId;
    },
    async settle(operation) {
      const row = await waitUntil(() => finalAuditRow(c, operation), 10_000);
      if (!row) throw new Error(`the ${operation} command left no audit row`);
      c.auditFloor = row.id;
    },
  };

  const expected = spec.expect(op);
  const attempts = expected.outcome === 'failed' && expected.retried && op.read ? READ_ATTEMPTS : 1;
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${op.name} × ${spec.name}: ${what}`);
  };

  const before = h.sandbox.requests.count(op.route);
  h.sandbox.faults.set(op.route, { ...spec.fault(op), times: attempts });
  try {
    await op.start(c);
  } catch (error) {
    h.sandbox.faults.clear(op.route);
    return [`${op.name} × ${spec.name}: could not be started: ${String(error)}`];
  }
  const deadline = spec.slow ? READ_ATTEMPTS * (TIMEOUT_DELAY_MS + 5_000) : 20_000;
  const row = await waitUntil(() => finalAuditRow(c, op.operation), deadline);
  const shown = await waitUntil(
    () => (shownTo(c).some((text) => expected.message.test(text)) ? shownTo(c) : undefined),
    5_000,
  );
  h.sandbox.faults.clear(op.route);

  const all = shown ?? shownTo(c);
  check(shown !== undefined, `expected ${expected.message} to be shown; saw ${JSON.stringify(all)}`);
  check(
    !all.some((text) => text.includes('<!channel>')),
    'platform text reached Slack unescaped (<!channel>)',
  );
  const calls = h.sandbox.requests.count(op.route) - before;
  check(calls === attempts, `expected ${attempts} platform request(s), saw ${calls}`);
  check(
    row?.outcome === expected.outcome,
    `audit outcome ${row?.outcome ?? '(no row)'}, expected ${expected.outcome}`,
  );

  if (expected.outcome === 'failed') {
    check(
      expected.detail.test(row?.detail ?? ''),
      `audit detail ${JSON.stringify(row?.detail)} does not say what failed (${expected.detail})`,
    );
    const message = all.find((text) => expected.message.test(text)) ?? '';
    const correlation = /correlation id (c-[0-9a-f]+)/.exec(message)?.[1];
    if (expected.unexpected) {
      check(correlation !== undefined, `no correlation id with the message: ${JSON.stringify(message)}`);
      check(
        correlation === undefined || h.logs.some((line) => line.includes(correlation)),
        `correlation id ${correlation} is not in any log line`,
      );
    } else {
      check(correlation === undefined, `a correlation id for a failure the user can act on: ${message}`);
    }
  }

  const health = await request(`${h.baseUrl}/healthz`);
  await health.body.dump();
  check(health.statusCode === 200, `/healthz answered ${health.statusCode}`);
  return problems;
}

/** Cells that share a route run one after another; different routes run at the same time. */
async function runColumn(h: Harness, specs: (op: OperationSpec) => FaultSpec[]): Promise<string[]> {
  const byRoute = await Promise.all(
    OPERATIONS.map(async (op) => {
      const problems: string[] = [];
      for (const spec of specs(op)) problems.push(...(await runCell(h, op, spec)));
      return problems;
    }),
  );
  return byRoute.flat();
}

let fast: Harness;
let slow: Harness;

beforeAll(async () => {
  [fast, slow] = await Promise.all([
    startHarness({ policyYaml: POLICY }),
    startHarness({ policyYaml: POLICY, platformHttp: { headersTimeoutMs: HEADERS_TIMEOUT_MS } }),
  ]);
});
afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
});

describe('the fault matrix', () => {
  it('every platform operation, under every platform fault, tells the user, retries only reads, stays healthy and audits it', async () => {
    const [quick, timeouts] = await Promise.all([
      runColumn(fast, (op) => cells(op).filter((spec) => !spec.slow)),
      runColumn(slow, (op) => cells(op).filter((spec) => spec.slow)),
    ]);
    expect([...quick, ...timeouts]).toEqual([]);
    for (const h of [fast, slow]) {
      const ready = await request(`${h.metricsUrl}/readyz`);
      await ready.body.dump();
      expect(ready.statusCode).toBe(200);
    }
  }, 120_000);
});
