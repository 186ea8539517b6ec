import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { z } from 'zod';
import { INVESTIGATE_SHORTCUT } from '../src/operations/logs/investigate.js';
import { operations } from '../src/operations/registry.js';
import { readSlackSchema, repoRoot, schemasAvailable } from './support/block-kit.js';

// ajv-formats is CommonJS; under NodeNext its default export sits on `.default`.
const addFormats = ajvFormats.default;

const manifestText = readFileSync(path.join(repoRoot, 'manifest.yml'), 'utf8');
const manifest: unknown = YAML.parse(manifestText);

// Only what these tests read; the schemas below check the rest.
const manifestShape = z.object({
  _metadata: z.object({ major_version: z.number() }),
  display_information: z.object({
    name: z.string(),
    description: z.string(),
    long_description: z.string().optional(),
  }),
  features: z.object({
    bot_user: z.object({ display_name: z.string(), always_online: z.boolean() }),
    slash_commands: z.array(
      z.object({
        command: z.string(),
        description: z.string(),
        usage_hint: z.string(),
        url: z.string(),
        should_escape: z.boolean(),
      }),
    ),
    shortcuts: z.array(
      z.object({ name: z.string(), type: z.string(), callback_id: z.string(), description: z.string() }),
    ),
    app_home: z.object({
      home_tab_enabled: z.boolean(),
      messages_tab_enabled: z.boolean(),
      messages_tab_read_only_enabled: z.boolean(),
    }),
  }),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()) }) }),
  settings: z.object({
    event_subscriptions: z.object({ request_url: z.string(), bot_events: z.array(z.string()) }),
    interactivity: z.object({
      is_enabled: z.boolean(),
      request_url: z.string(),
      message_menu_options_url: z.string(),
    }),
    socket_mode_enabled: z.boolean(),
    org_deploy_enabled: z.boolean(),
    token_rotation_enabled: z.boolean(),
  }),
});

function schemaErrors(schemaFile: string): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false }); // the v1 schema uses a non-standard "regex" keyword
  addFormats(ajv);
  const validate = ajv.compile(readSlackSchema(schemaFile));
  if (validate(manifest)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

/**
 * The bot scope each Web API method edgeops calls needs (docs.slack.dev/reference/methods/…);
 * an empty list for methods that need none (a trigger_id or the token itself is the permission).
 */
const SCOPE_OF_METHOD: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  // A link to a headline for those who asked the same: Slack asks no scope for it.
  'chat.getPermalink': [],
  'conversations.open': ['im:write'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'usergroups.users.list': ['usergroups:read'],
  'views.open': [],
  'views.push': [],
  'views.update': [],
  // The Home tab: publishing a user's view needs no scope.
  'views.publish': [],
};

/** The bot scope each subscribed event needs (docs.slack.dev/reference/events/…). */
const SCOPE_OF_EVENT: Record<string, string[]> = {
  app_mention: ['app_mentions:read'],
  app_home_opened: [],
};

/** Web API methods called through a WebClient anywhere in src/ (`client.chat.postMessage(`). */
function slackMethodsCalled(): string[] {
  const sources = readdirSync(path.join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(path.join(repoRoot, 'src', file), 'utf8'));
  const methods = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(/\bclient\.((?:[a-z]+\.)+[a-zA-Z]+)\(/g)) methods.add(match[1]!);
    // A method called by name would escape the pattern above.
    expect(source).not.toMatch(/\.apiCall\(/);
  }
  return [...methods].sort();
}

function allUrls(value: unknown): string[] {
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(allUrls);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(allUrls);
  return [];
}

describe('the Slack app manifest', () => {
  const parsed = manifestShape.parse(manifest);

  it.skipIf(!schemasAvailable)("validates against Slack's v1 manifest schema", () => {
    expect(schemaErrors('slack-app-manifest.v1.schema.json')).toEqual([]);
  });

  it.skipIf(!schemasAvailable)("validates against SchemaStore's manifest schema", () => {
    expect(schemaErrors('schemastore.slack-app-manifest.schema.json')).toEqual([]);
  });

  it('asks for exactly the bot scopes edgeops uses', () => {
    expect([...parsed.oauth_config.scopes.bot].sort()).toEqual(
      ['app_mentions:read', 'chat:write', 'commands', 'files:write', 'im:write', 'usergroups:read'].sort(),
    );
    expect(new Set(parsed.oauth_config.scopes.bot).size).toBe(parsed.oauth_config.scopes.bot.length);
  });

  it('asks for no scope beyond what the Web API methods called in src/ and its events need', () => {
    const called = slackMethodsCalled();
    expect(called.length).toBeGreaterThan(5);
    const unknown = called.filter((method) => !(method in SCOPE_OF_METHOD));
    expect(unknown, 'add the method and its scope to SCOPE_OF_METHOD').toEqual([]);
    const events = parsed.settings.event_subscriptions.bot_events;
    const unknownEvents = events.filter((event) => !(event in SCOPE_OF_EVENT));
    expect(unknownEvents, 'add the event and its scope to SCOPE_OF_EVENT').toEqual([]);
    const needed = new Set([
      'commands',
      ...called.flatMap((method) => SCOPE_OF_METHOD[method] ?? []),
      ...events.flatMap((event) => SCOPE_OF_EVENT[event] ?? []),
    ]);
    expect([...parsed.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
    // users:read was asked for once; nothing reads a user profile.
    expect(called.filter((method) => method.startsWith('users.'))).toEqual([]);
  });

  it('has every scope justified in the README', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const start = readme.indexOf('### Slack scopes');
    expect(start).toBeGreaterThan(-1);
    const rest = readme.slice(start + 1);
    const section = rest.slice(0, rest.search(/\n#/));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const justified = rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1]);
    expect(justified.sort()).toEqual([...parsed.oauth_config.scopes.bot].sort());
    for (const row of rows) expect(row.split('|')[2]?.trim().length ?? 0).toBeGreaterThan(20);
    // Every Web API method the bot calls is named there, with its scope or as needing none.
    const unnamed = slackMethodsCalled().filter((method) => !section.includes(`\`${method}\``));
    expect(unnamed, 'methods the README does not name').toEqual([]);
  });

  it('declares /edge with a usage hint, unescaped, on the events URL', () => {
    expect(parsed.features.slash_commands).toHaveLength(1);
    const [edge] = parsed.features.slash_commands;
    expect(edge).toMatchObject({ command: '/edge', should_escape: false });
    expect(edge?.usage_hint).toMatch(/^menu \| help \| logs PULLZONE_ID/);
  });

  it('hints only commands the bot knows, with arguments and flags their usage lines have', () => {
    const hint = parsed.features.slash_commands[0]?.usage_hint ?? '';
    const stale: string[] = [];
    for (const alternative of hint.split(' | ')) {
      const tokens = alternative.split(' ');
      const firstArgument = tokens.findIndex((token) => !/^[a-z][a-z-]*$/.test(token));
      const words = firstArgument === -1 ? tokens : tokens.slice(0, firstArgument);
      const operation = operations.find((op) => op.words.join(' ') === words.join(' '));
      if (!operation) {
        stale.push(`${alternative}: no command is "${words.join(' ')}"`);
        continue;
      }
      for (const token of tokens.slice(words.length).map((t) => t.replace(/[[\]]/g, '')))
        if (!operation.usage.includes(token))
          stale.push(`${alternative}: ${operation.usage} has no ${token}`);
    }
    expect(stale).toEqual([]);
  });

  it('subscribes to mentions of the bot and to the Home tab being opened, which the app listens for, and nothing else', () => {
    expect(parsed.settings.event_subscriptions.bot_events).toEqual(['app_mention', 'app_home_opened']);
    const source = readFileSync(path.join(repoRoot, 'src/slack/listeners/mentions.ts'), 'utf8');
    expect(source).toContain("app.event('app_mention'");
    const home = readFileSync(path.join(repoRoot, 'src/slack/listeners/home.ts'), 'utf8');
    expect(home).toContain("app.event('app_home_opened'");
  });

  it('has a Home tab, and a Messages tab nobody can write into, where keys and tokens arrive', () => {
    expect(parsed.features.app_home).toEqual({
      home_tab_enabled: true,
      messages_tab_enabled: true,
      messages_tab_read_only_enabled: true,
    });
  });

  it('offers "Investigate with edgeops" on messages, under the callback id the app listens for', () => {
    expect(parsed.features.shortcuts).toEqual([
      {
        name: 'Investigate with edgeops',
        type: 'message',
        callback_id: INVESTIGATE_SHORTCUT,
        description: expect.stringMatching(/\S/),
      },
    ]);
  });

  it('asks Slack for the zone pickers’ options on the interactivity URL, where the app answers them', () => {
    const { interactivity } = parsed.settings;
    expect(interactivity.message_menu_options_url).toBe(interactivity.request_url);
    const source = readFileSync(path.join(repoRoot, 'src/slack/listeners/options.ts'), 'utf8');
    expect(source).toMatch(/app\.options<'block_suggestion'>\(\s*\{ type: 'block_suggestion'/);
  });

  it('points every URL at /slack/events over https', () => {
    const urls = allUrls(manifest);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
  });

  it('runs in Socket Mode with interactivity on and no org deploy or token rotation', () => {
    expect(parsed._metadata.major_version).toBe(1);
    expect(parsed.settings).toMatchObject({
      socket_mode_enabled: true,
      org_deploy_enabled: false,
      token_rotation_enabled: false,
      interactivity: { is_enabled: true },
    });
  });

  it('names the app edgeops with a lowercase, hyphenated bot name', () => {
    expect(parsed.display_information.name).toBe('edgeops');
    expect(parsed.features.bot_user.display_name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(parsed.features.bot_user.always_online).toBe(true);
    const long = parsed.display_information.long_description;
    if (long !== undefined) expect(long.length).toBeGreaterThanOrEqual(175);
  });
});
