import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiErrorDataSchema,
  ApiKeyListSchema,
  DnsZoneListSchema,
  VideoLibrarySchema,
} from '../../src/platform/schemas.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { jsonHeaders, startTestSandbox } from './harness.js';

let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

const createLibrary = (body: unknown, headers: Record<string, string> = jsonHeaders(sandbox)) =>
  fetch(`${sandbox.apiUrl}/videolibrary`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('POST /videolibrary', () => {
  it('creates a library with its own keys and zones and answers 201', async () => {
    const response = await createLibrary({ Name: 'Training videos', EnabledResolutions: '720p,1080p' });
    expect(response.status).toBe(201);
    const library = VideoLibrarySchema.parse(await response.json());
    expect(library.Name).toBe('Training videos');
    expect(library.EnabledResolutions).toBe('720p,1080p');
    expect(library.ApiKey).toMatch(/^[0-9a-f-]{36}-[0-9a-f]{4}-[0-9a-f]{4}$/);
    expect(library.ReadOnlyApiKey).not.toBe(library.ApiKey);
    expect(library.PullZoneId).toBeGreaterThan(0);
    expect(library.StorageZoneId).toBeGreaterThan(0);
    expect(library.EnableTranscribing).toBe(false);
  });

  it('returns only fields of the documented model, with the neutral DRM names', async () => {
    const response = await createLibrary({ Name: 'Shape check' });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toHaveProperty('PlatformADrm');
    expect(body).toHaveProperty('PlatformBDrm');
    expect(body).not.toHaveProperty('AppleFairPlayDrm');
    expect(body).not.toHaveProperty('ViAiPublisherId');
    expect(Object.keys(body)).toHaveLength(81);
  });

  it('turns transcribing on when a smart-generation feature is asked for', async () => {
    const response = await createLibrary({ Name: 'Chapters', EnableTranscribingChaptersGeneration: true });
    const library = VideoLibrarySchema.parse(await response.json());
    expect(library.EnableTranscribing).toBe(true);
  });

  it('exposes originals when early play is enabled', async () => {
    const response = await createLibrary({ Name: 'Early', AllowEarlyPlay: true });
    expect(await response.json()).toMatchObject({ AllowEarlyPlay: true, ExposeOriginals: true });
  });

  it('makes each new library key different', async () => {
    const first = VideoLibrarySchema.parse(await (await createLibrary({ Name: 'a' })).json());
    const second = VideoLibrarySchema.parse(await (await createLibrary({ Name: 'b' })).json());
    expect(first.ApiKey).not.toBe(second.ApiKey);
    expect(first.Id).not.toBe(second.Id);
  });

  it.each([
    [{ Name: '' }, 'Name'],
    [{ Name: 'x', Colour: 'red' }, 'Colour'],
    [{ Name: 'x', EnabledResolutions: '' }, 'EnabledResolutions'],
    [{ Name: 'x', EnabledResolutions: '720p,4k' }, 'EnabledResolutions'],
    [{ Name: 'x', OutputCodecs: 'x264,av1' }, 'OutputCodecs'],
    [{ Name: 'x', EncodingTier: 0, JitEncodingEnabled: true }, 'JitEncodingEnabled'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const response = await createLibrary(body);
    expect(response.status).toBe(400);
    const error = ApiErrorDataSchema.parse(await response.json());
    expect(error.Field).toBe(field);
    expect(error.Message).toBeTruthy();
    expect(error.ErrorKey).toBeTruthy();
  });

  it('accepts premium codecs and JIT on the premium tier', async () => {
    const response = await createLibrary({
      Name: 'Premium',
      EncodingTier: 1,
      OutputCodecs: 'x264,av1',
      JitEncodingEnabled: true,
    });
    expect(response.status).toBe(201);
  });

  it('answers 401 with an empty body when the AccessKey is wrong or missing', async () => {
    const variants: Record<string, string>[] = [
      { 'content-type': 'application/json' },
      { ...jsonHeaders(sandbox), AccessKey: 'wrong' },
    ];
    for (const headers of variants) {
      const response = await createLibrary({ Name: 'x' }, headers);
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('');
    }
  });
});

describe('GET /apikey', () => {
  const list = (query: string, key = sandbox.apiKey) =>
    fetch(`${sandbox.apiUrl}/apikey${query}`, { headers: { AccessKey: key } });

  it('pages the seeded keys in the documented envelope', async () => {
    const first = ApiKeyListSchema.parse(await (await list('?page=1&perPage=5')).json());
    expect(first.Items).toHaveLength(5);
    expect(first).toMatchObject({ CurrentPage: 1, TotalItems: 12, HasMoreItems: true });
    expect(first.Items[1]?.Roles.length).toBeGreaterThan(0);
    const last = ApiKeyListSchema.parse(await (await list('?page=3&perPage=5')).json());
    expect(last.Items).toHaveLength(2);
    expect(last.HasMoreItems).toBe(false);
  });

  it('lists everything on one page without paging parameters', async () => {
    const all = ApiKeyListSchema.parse(await (await list('')).json());
    expect(all.Items.map((item) => item.Id)).toEqual([...sandbox.apiKeyIds]);
  });

  it.each(['?page=0', '?perPage=4', '?perPage=1001', '?page=abc'])(
    'refuses %s with ApiErrorData',
    async (query) => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(ApiErrorDataSchema.parse(await response.json()).Field).toMatch(/page|perPage/);
    },
  );

  it('answers 401 with an empty body for a wrong key', async () => {
    const response = await list('', 'wrong');
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
  });
});

describe('POST /pullzone/{id}/resetSecurityKey', () => {
  const reset = (id: number | string, body?: unknown) =>
    fetch(`${sandbox.apiUrl}/pullzone/${id}/resetSecurityKey`, {
      method: 'POST',
      headers: jsonHeaders(sandbox),
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('stores the given key and answers 204', async () => {
    const response = await reset(sandbox.ids.pullZone, { SecurityKey: 'a-new-key-of-32-characters-12345' });
    expect(response.status).toBe(204);
    expect(sandbox.pullZoneSecurityKey(sandbox.ids.pullZone)).toBe('a-new-key-of-32-characters-12345');
  });

  it('generates a key when no body is sent', async () => {
    const before = sandbox.pullZoneSecurityKey(sandbox.ids.mediaPullZone);
    expect((await reset(sandbox.ids.mediaPullZone)).status).toBe(204);
    expect(sandbox.pullZoneSecurityKey(sandbox.ids.mediaPullZone)).not.toBe(before);
  });

  it.each(['short', 'x'.repeat(37)])('refuses the key %s with ApiErrorData', async (key) => {
    const response = await reset(sandbox.ids.pullZone, { SecurityKey: key });
    expect(response.status).toBe(400);
    expect(ApiErrorDataSchema.parse(await response.json()).Field).toBe('SecurityKey');
  });

  it('answers 404 with an empty body for an unknown pull zone', async () => {
    const response = await reset(123, { SecurityKey: 'long-enough-key' });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('');
  });

  it('never records the key itself in the request log', async () => {
    await reset(sandbox.ids.apiPullZone, { SecurityKey: 'secret-key-that-must-not-leak' });
    const recorded = sandbox.requests.last('pullzone.resetSecurityKey');
    expect(JSON.stringify(recorded)).not.toContain('secret-key-that-must-not-leak');
    expect(recorded?.body).toEqual({ SecurityKey: '…leak' });
    expect(recorded?.headers.accesskey).toBe(`…${sandbox.apiKey.slice(-4)}`);
  });
});

describe('GET /dnszone', () => {
  const list = async (query: string) => {
    const response = await fetch(`${sandbox.apiUrl}/dnszone${query}`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it('lists at least eight zones with records of every type code and an unknown one', async () => {
    const { body } = await list('');
    const zones = DnsZoneListSchema.parse(body);
    expect(zones.TotalItems).toBeGreaterThanOrEqual(8);
    const types = new Set(zones.Items.flatMap((zone) => zone.Records.map((record) => record.Type)));
    for (let code = 0; code <= 15; code++) expect(types).toContain(code);
    expect(types).toContain(99);
  });

  it('carries records whose values try to ping Slack', async () => {
    const zones = DnsZoneListSchema.parse((await list('?search=shop')).body);
    const values = zones.Items.flatMap((zone) => zone.Records.map((record) => record.Value));
    expect(values).toContain('<!channel>');
    expect(values).toContain('<@U123> & friends');
  });

  it('filters by search term and pages', async () => {
    const zones = DnsZoneListSchema.parse((await list('?search=EXAMPLE.dev&perPage=5')).body);
    expect(zones.Items.map((zone) => zone.Domain)).toEqual(['status-example.dev', 'blog-example.dev']);
    const page = DnsZoneListSchema.parse((await list('?page=2&perPage=5')).body);
    expect(page).toMatchObject({ CurrentPage: 2, HasMoreItems: true });
    expect(page.Items).toHaveLength(5);
    const last = DnsZoneListSchema.parse((await list('?page=3&perPage=5')).body);
    expect(last).toMatchObject({ CurrentPage: 3, HasMoreItems: false });
    expect(last.Items.map((zone) => zone.Domain)).toEqual(['large-example.com']);
  });

  it('sends empty Records in the Lite view', async () => {
    const zones = DnsZoneListSchema.parse((await list('?view=1')).body);
    expect(zones.Items.every((zone) => zone.Records.length === 0)).toBe(true);
    expect(zones.Items[0]?.Domain).toBe('edgeops.dev');
  });

  it.each(['?view=2', '?perPage=2', '?page=-1'])('refuses %s with ApiErrorData', async (query) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(ApiErrorDataSchema.parse(body).ErrorKey).toBe('validation_error');
  });

  it('answers 401 with an empty body without the AccessKey', async () => {
    const response = await fetch(`${sandbox.apiUrl}/dnszone`);
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
  });
});

describe('routing', () => {
  it('answers 404 for unknown paths and 405 for a known path with another method', async () => {
    expect((await fetch(`${sandbox.apiUrl}/nope`, { headers: { AccessKey: sandbox.apiKey } })).status).toBe(
      404,
    );
    expect((await fetch(`${sandbox.apiUrl}/apikey`, { method: 'DELETE' })).status).toBe(405);
    expect(sandbox.requests.last()?.routeId).toBe('unmatched');
  });
});
