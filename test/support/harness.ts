/**
 * The whole bot as it runs in production, HTTP mode: the real Bolt app and runtime, pointed
 * at the fake Slack Web API and the sandbox platform over real HTTP on 127.0.0.1. Tests send
 * correctly signed requests and read what the fake Slack received.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ViewStateValue } from '@slack/bolt';
import { type Config, loadConfig } from '../../src/config.js';
import type { Messenger } from '../../src/operations/engine/ports.js';
import type { Policy } from '../../src/policy/schema.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type RunningSlackApp, startSlackApp } from '../../src/slack/app.js';
import { createSlackGroupFetcher } from '../../src/slack/groups.js';
import { createSlackMessenger } from '../../src/slack/surface.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock, type TestClock } from './clock.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { findLeaks } from './leak-check.js';
import {
  type AppMentionInput,
  appHomeOpened,
  appMention,
  blockActions,
  blockSuggestion,
  DEFAULT_BOT_USER_ID,
  DEFAULT_CHANNEL_ID,
  DEFAULT_USER_ID,
  type MessageShortcutInput,
  messageShortcut,
  newTs,
  slashCommand,
  viewSubmission,
} from './payloads.js';
import { forgetKeptDaysOnKnobs, sandboxEnv } from './sandbox-env.js';
import { postSigned, type SignedResponse } from './signer.js';

export const SIGNING_SECRET = 'test-signing-secret-0f3c9a7e5b';
export const BOT_TOKEN = 'xoxb-test-0000-bot-token-9d2e';

/** Every log line every harness wrote in this test file, for the leak check. */
export const logLines: string[] = [];

export interface HarnessOptions {
  /** Policy YAML written to a temporary file; without it the built-in default applies. */
  policyYaml?: string;
  fallbackPolicy?: Policy;
  env?: Record<string, string>;
  sandbox?: Sandbox;
  /** The clock the bot, the sandbox and the fake Slack share; a pinned one by default. */
  clock?: TestClock;
  /** The customer database's id when its URL (the sandbox's 127.0.0.1) does not name it. */
  serviceDatabaseId?: string;
  /** Points SERVICE_DATABASE_URL at the sandbox's database, with its full-access token and id. */
  serviceDatabase?: boolean;
  /** Shorter platform timeouts, for timeout cases. */
  platformHttp?: RuntimeOptions['platformHttp'];
  /** When long jobs show progress, and how often it may change. */
  progress?: RuntimeOptions['progress'];
  /** The chart picture's bound and font, for the cases where drawing it fails. */
  charts?: RuntimeOptions['charts'];
  /**
   * How often the watch poller wakes by itself. By default it never does within a test: tests move
   * the clock and call `runtime.watchPoller.tick()`, so no poll lands in another test's counts.
   */
  watchTickMs?: number;
  /** The workspace (and Enterprise Grid org) the bot is installed in, as auth.test names it. */
  workspace?: { teamId?: string; enterpriseId?: string };
  /**
   * Tests of the fallbacks provoke refusals on purpose. Everywhere else a payload Slack would
   * refuse fails the test file when its harness closes: nobody would have seen it.
   */
  allowRefusals?: boolean;
}

export interface Harness {
  fake: FakeSlack;
  sandbox: Sandbox;
  runtime: Runtime;
  slack: RunningSlackApp;
  config: Config;
  eventsUrl: string;
  /** The public port: /slack/events and /healthz. */
  baseUrl: string;
  /** METRICS_PORT: /healthz, /readyz and /metrics. */
  metricsUrl: string;
  logs: string[];
  policyPath?: string;
  /** The one clock of this harness: move it with set/advance. */
  clock: TestClock;
  /** The surface background work (approval sweeps) uses: no user, no response_url. */
  /** Posts outside any request, as the approval sweep does. */
  systemSurface: Messenger;
  /** Sends a signed `/edge …` and waits for the HTTP acknowledgement. */
  command(
    text: string,
    options?: {
      userId?: string;
      channelId?: string;
      retryNum?: number;
      triggerId?: string;
      /** The user's workspace and Grid org, as Slack names them in the command. */
      teamId?: string;
      enterpriseId?: string;
    },
  ): Promise<{ ack: SignedResponse; responseUrl: string; triggerId: string }>;
  /**
   * Sends a signed `app_mention` event for `@edgeops <text>` (the bot's mention is put in front;
   * with `raw`, `text` is the whole message as Slack writes it). Waits for the acknowledgement.
   */
  mention(
    text: string,
    options?: Omit<AppMentionInput, 'text'> & { raw?: boolean; retryNum?: number },
  ): Promise<{ ack: SignedResponse; eventId: string; ts: string }>;
  /** Sends a signed `app_home_opened` event: the user opens the Home tab. Waits for the acknowledgement. */
  openHome(userId?: string): Promise<SignedResponse>;
  /** Uses a message shortcut on a message whose text is `options.text`; waits for the acknowledgement. */
  shortcut(options: MessageShortcutInput): Promise<{ ack: SignedResponse; triggerId: string }>;
  /** Clicks a button with a signed block_actions payload. */
  click(
    actionId: string,
    value: string,
    options?: {
      userId?: string;
      channelId?: string;
      responseUrl?: string;
      messageTs?: string;
      /** The clicker's workspace (`user.team_id`). */
      teamId?: string;
    },
  ): Promise<SignedResponse>;
  /** Picks an option of a menu (a static_select) with a signed block_actions payload. */
  pick(
    actionId: string,
    option: { text: string; value: string },
    options?: { userId?: string; channelId?: string; responseUrl?: string },
  ): Promise<SignedResponse>;
  /** Submits a form; `values` maps field ids to Slack state values. Returns the parsed ack body. */
  submitView(
    callbackId: string,
    privateMetadata: string,
    values: Record<string, ViewStateValue>,
    options?: { userId?: string; teamId?: string },
  ): Promise<{ status: number; body: unknown }>;
  /**
   * Types `value` into a zone picker of an open form (a signed block_suggestion) and returns the
   * acknowledgement, whose body holds the options, with how long the app took to answer.
   */
  suggest(
    actionId: string,
    value: string,
    options?: { blockId?: string; privateMetadata?: string; userId?: string; teamId?: string },
  ): Promise<{ status: number; body: unknown; elapsedMs: number }>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-test-'));
  const clock = options.clock ?? pinnedClock();
  const fake = await startFakeSlack({ now: clock, ...options.workspace });
  const sandbox = options.sandbox ?? (await startSandbox({ now: clock }));
  let policyPath: string | undefined;
  if (options.policyYaml !== undefined) {
    policyPath = join(dir, 'policy.yml');
    writeFileSync(policyPath, options.policyYaml);
  }
  const config = loadConfig({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    PORT: '0',
    METRICS_PORT: '0',
    ...sandboxEnv(sandbox, dir, { policyPath, serviceDatabase: options.serviceDatabase }),
    ...options.env,
  });
  const serviceDatabaseId =
    options.serviceDatabaseId ?? (options.serviceDatabase ? sandbox.databaseId : undefined);
  if (config.serviceDatabase && serviceDatabaseId) config.serviceDatabase.id = serviceDatabaseId;
  const logs: string[] = [];
  const secrets = new SecretRegistry();
  const logger = createLogger({
    level: 'debug',
    secrets,
    clock,
    write: (line) => {
      logs.push(line);
      logLines.push(line);
    },
  });
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger,
    fallbackPolicy: options.fallbackPolicy,
    platformHttp: options.platformHttp,
    progress: options.progress,
    charts: options.charts,
    policyIntervalMs: 50,
    watchTickMs: options.watchTickMs ?? 3_600_000,
    // Tests sweep by hand on the pinned clock: a sweep on real time would claim a reminder or an
    // expiry a test is about to sweep for, and its post would race the test's read.
    sweepIntervalMs: 3_600_000,
    // Homes are drawn again soon after a change; tests wait for the view on the fake.
    homeRefreshDelayMs: 5,
    now: clock,
    fetchGroupMembers: createSlackGroupFetcher({ token: BOT_TOKEN, apiUrl: fake.apiUrl }),
  });
  forgetKeptDaysOnKnobs(sandbox, runtime.services.keptDays);
  const slack = await startSlackApp({
    mode: 'http',
    botToken: BOT_TOKEN,
    signingSecret: SIGNING_SECRET,
    apiUrl: fake.apiUrl,
    port: 0,
    metricsPort: 0,
    engine: runtime.engine,
    services: runtime.services,
    metrics: runtime.metrics,
    logger,
    clientRetries: { retries: 2, minTimeout: 0, maxTimeout: 1 },
  });
  const systemSurface = createSlackMessenger({ client: slack.client, logger, secrets });
  await runtime.startBackground(systemSurface);
  const baseUrl = `http://127.0.0.1:${slack.port}`;
  const eventsUrl = `${baseUrl}/slack/events`;
  const metricsUrl = `http://127.0.0.1:${slack.metricsPort}`;

  return {
    fake,
    sandbox,
    runtime,
    slack,
    config,
    eventsUrl,
    baseUrl,
    metricsUrl,
    logs,
    policyPath,
    clock,
    systemSurface,
    async submitView(callbackId, privateMetadata, values, viewOptions = {}) {
      const state = Object.fromEntries(Object.entries(values).map(([id, value]) => [id, { [id]: value }]));
      const response = await postSigned(
        eventsUrl,
        viewSubmission({
          callbackId,
          privateMetadata,
          values: state,
          userId: viewOptions.userId ?? DEFAULT_USER_ID,
          ...(viewOptions.teamId ? { teamId: viewOptions.teamId } : {}),
        }),
        { signingSecret: SIGNING_SECRET },
      );
      return { status: response.status, body: response.body ? JSON.parse(response.body) : undefined };
    },
    async command(text, commandOptions = {}) {
      const responseUrl = fake.responseUrl();
      const request = slashCommand({
        text,
        userId: commandOptions.userId ?? DEFAULT_USER_ID,
        channelId: commandOptions.channelId ?? DEFAULT_CHANNEL_ID,
        responseUrl,
        triggerId: commandOptions.triggerId,
        teamId: commandOptions.teamId,
        enterpriseId: commandOptions.enterpriseId,
      });
      const ack = await postSigned(eventsUrl, request, {
        signingSecret: SIGNING_SECRET,
        retryNum: commandOptions.retryNum,
      });
      return { ack, responseUrl, triggerId: request.payload.trigger_id };
    },
    async mention(text, mentionOptions = {}) {
      const { raw, retryNum, ...input } = mentionOptions;
      const request = appMention({ ...input, text: raw ? text : `<@${DEFAULT_BOT_USER_ID}> ${text}` });
      const ack = await postSigned(eventsUrl, request, { signingSecret: SIGNING_SECRET, retryNum });
      return { ack, eventId: request.payload.event_id, ts: request.payload.event.ts };
    },
    openHome(userId = DEFAULT_USER_ID) {
      return postSigned(eventsUrl, appHomeOpened({ userId }), { signingSecret: SIGNING_SECRET });
    },
    async shortcut(shortcutOptions) {
      const request = messageShortcut(shortcutOptions);
      const ack = await postSigned(eventsUrl, request, { signingSecret: SIGNING_SECRET });
      return { ack, triggerId: request.payload.trigger_id };
    },
    async suggest(actionId, value, suggestOptions = {}) {
      const started = performance.now();
      const response = await postSigned(
        eventsUrl,
        blockSuggestion({
          actionId,
          blockId: suggestOptions.blockId ?? 'zone',
          value,
          userId: suggestOptions.userId ?? DEFAULT_USER_ID,
          ...(suggestOptions.teamId ? { teamId: suggestOptions.teamId } : {}),
          privateMetadata: suggestOptions.privateMetadata ?? JSON.stringify({ c: DEFAULT_CHANNEL_ID, m: '' }),
        }),
        { signingSecret: SIGNING_SECRET },
      );
      return {
        status: response.status,
        body: response.body ? JSON.parse(response.body) : undefined,
        elapsedMs: performance.now() - started,
      };
    },
    click(actionId, value, clickOptions = {}) {
      return postSigned(
        eventsUrl,
        blockActions({
          actionId,
          value,
          userId: clickOptions.userId ?? DEFAULT_USER_ID,
          channelId: clickOptions.channelId ?? DEFAULT_CHANNEL_ID,
          responseUrl: clickOptions.responseUrl ?? fake.responseUrl(),
          ...(clickOptions.messageTs ? { messageTs: clickOptions.messageTs } : {}),
          ...(clickOptions.teamId ? { teamId: clickOptions.teamId } : {}),
        }),
        { signingSecret: SIGNING_SECRET },
      );
    },
    pick(actionId, option, pickOptions = {}) {
      return postSigned(
        eventsUrl,
        blockActions({
          actionId,
          actions: [
            {
              type: 'static_select',
              block_id: 'menu',
              action_id: actionId,
              selected_option: { text: { type: 'plain_text', text: option.text }, value: option.value },
              placeholder: { type: 'plain_text', text: 'Pick…' },
              action_ts: newTs(),
            },
          ],
          userId: pickOptions.userId ?? DEFAULT_USER_ID,
          channelId: pickOptions.channelId ?? DEFAULT_CHANNEL_ID,
          responseUrl: pickOptions.responseUrl ?? fake.responseUrl(),
        }),
        { signingSecret: SIGNING_SECRET },
      );
    },
    async close() {
      // The suite-wide leak guard: nothing this harness saw may carry a secret.
      const keys = await runtime.services.platform.listApiKeys({ perPage: 1000 }).catch(() => undefined);
      const never = [
        BOT_TOKEN,
        SIGNING_SECRET,
        sandbox.apiKey,
        sandbox.databaseTokens.fullAccess,
        sandbox.databaseTokens.readOnly,
        ...(keys?.Items.map((key) => key.Key ?? '') ?? []),
      ].filter((secret) => secret.length >= 8);
      const dmOnly = runtime.secrets.values().filter((secret) => !never.includes(secret));
      const audit = await runtime.services.state.client
        .execute('SELECT * FROM audit_log')
        .then((result) =>
          result.rows.map((row) => ({ where: `audit row ${String(row.id)}`, text: JSON.stringify(row) })),
        )
        .catch(() => []);
      const leaks = findLeaks(fake, logs, { never, dmOnly }, audit);
      const refusals = options.allowRefusals ? [] : [...fake.refusals];
      await slack.stop();
      await runtime.close();
      if (!options.sandbox) await sandbox.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
      if (refusals.length > 0)
        throw new Error(
          `Slack would have refused ${refusals.length} payload(s): ${refusals.map((r) => `${r.error}: ${r.problems.join('; ')}`).join(' | ')}`,
        );
      if (leaks.length > 0)
        throw new Error(
          `secrets leaked: ${leaks.map((leak) => `${leak.secret} in ${leak.where}`).join('; ')}`,
        );
    },
  };
}
