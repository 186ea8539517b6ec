/**
 * The vendor's published response schemas and examples (../shared/reference/platform-fixtures),
 * run through the client's own parsers. Besides the examples as given, each response schema is
 * turned into instances: every field present; only the required ones; every nullable leaf null;
 * every nullable field null. Whatever the vendor's schema allows, the client must read.
 * Skipped, with a notice, when ../shared is not checked out next to the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { errorFromResponse, PlatformError, shieldEnvelopeFailure } from '../../src/platform/errors.js';
import {
  ApiKeyListSchema,
  BotDetectionConfigSchema,
  DnsZoneListSchema,
  GeneratedTokenSchema,
  shieldEnvelope,
  VideoLibrarySchema,
  WafEnumsResponseSchema,
} from '../../src/platform/schemas.js';
import { JsonArraySplitter } from '../../src/reports/json-entries.js';
import { isOriginEntry, OriginLogEntrySchema } from '../../src/reports/origin/entry.js';
import { DNS_RECORD_NULLABLE, DNS_ZONE_NULLABLE } from '../../src/sandbox/vendor-rules.js';
import { repoRoot } from '../support/block-kit.js';

const fixturesDir = path.resolve(repoRoot, '../shared/reference/platform-fixtures');
const available = existsSync(fixturesDir);
if (!available)
  console.warn('shared/reference/platform-fixtures not found: skipping the vendor schema tests');

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (value ?? {}) as Json;

function fixture(name: string): Json {
  return JSON.parse(readFileSync(path.join(fixturesDir, name), 'utf8')) as Json;
}

/** Follows a path of keys through a fixture: `at(f, 'openapi_operation', 'responses', '200')`. */
function at(value: unknown, ...keys: string[]): Json {
  let current = value;
  for (const key of keys) {
    current = asObject(current)[key];
    if (current === undefined) throw new Error(`fixture has no ${keys.join(' › ')}`);
  }
  return asObject(current);
}

const jsonSchemaOf = (response: Json) => at(response, 'content', 'application/json', 'schema');

// ---------------------------------------------------------------- instances of an OpenAPI schema

type Mode = 'every field' | 'required fields only' | 'nullable leaves null' | 'every nullable null';
const MODES: Mode[] = ['every field', 'required fields only', 'nullable leaves null', 'every nullable null'];

/** `$ref`s resolve against `root`; `oneOf` takes its first choice, as the vendor's docs renderer does. */
function resolve(schema: Json, root: Json): Json {
  if (typeof schema.$ref === 'string') {
    const keys = schema.$ref.replace(/^#\//, '').split('/');
    return resolve(at(root, ...keys), root);
  }
  if (Array.isArray(schema.oneOf)) {
    const { oneOf, ...rest } = schema;
    return { ...resolve(asObject(oneOf[0]), root), ...rest };
  }
  return schema;
}

function instance(raw: Json, mode: Mode, root: Json): unknown {
  const schema = resolve(raw, root);
  const isObjectLike = schema.type === 'object' || schema.type === 'array';
  if (schema.nullable === true) {
    if (mode === 'every nullable null') return null;
    if (mode === 'nullable leaves null' && !isObjectLike) return null;
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time'
        ? '2023-11-07T05:31:56Z'
        : schema.format === 'uuid'
          ? 'a6a6b755-b6a4-46be-b523-aa82a17d4bc5'
          : '<string>';
    case 'integer':
      return 123;
    case 'number':
      return 123.5;
    case 'boolean':
      return true;
    case 'array':
      return [instance(asObject(schema.items), mode, root)];
    default: {
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const out: Json = {};
      for (const [name, property] of Object.entries(asObject(schema.properties))) {
        if (mode === 'required fields only' && !required.has(name)) continue;
        out[name] = instance(asObject(property), mode, root);
      }
      return out;
    }
  }
}

/** The nullable properties of an object schema, by name. */
const nullableFields = (schema: Json) =>
  Object.entries(asObject(schema.properties))
    .filter(([, property]) => asObject(property).nullable === true)
    .map(([name]) => name)
    .sort();

function expectReads(schema: z.ZodType, value: unknown, what: string) {
  const parsed = schema.safeParse(value);
  expect(parsed.success, `${what}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
}

const errorOf = (status: number, body: unknown) =>
  errorFromResponse({ operation: 'vendor.fixture' }, status, JSON.stringify(body));

// ---------------------------------------------------------------- the tests

describe.skipIf(!available)('the vendor’s published responses, read by the client', () => {
  const successes: [string, string, string[], z.ZodType][] = [
    [
      'POST /videolibrary 201',
      '01-videolibrary-create.json',
      ['openapi_operation', 'responses', '201'],
      VideoLibrarySchema,
    ],
    ['GET /apikey 200', '02-apikey-list.json', ['openapi_operation', 'responses', '200'], ApiKeyListSchema],
    [
      'PATCH bot-detection 200',
      '04-shield-bot-detection-patch.json',
      ['openapi_operation', 'responses', '200'],
      shieldEnvelope(BotDetectionConfigSchema),
    ],
    [
      'GET bot-detection 200',
      '04-shield-bot-detection-patch.json',
      ['openapi_operation_get_same_path', 'responses', '200'],
      shieldEnvelope(BotDetectionConfigSchema),
    ],
    [
      'GET /dnszone 200',
      '07-dnszone-list.json',
      ['openapi_operation', 'responses', '200'],
      DnsZoneListSchema,
    ],
    [
      'GET /shield/waf/enums 200',
      '08-shield-waf-enums.json',
      ['openapi_operation', 'responses', '200'],
      WafEnumsResponseSchema,
    ],
    [
      'PUT database token generate 200',
      '10-database-token-management.json',
      ['openapi_paths', '/v2/databases/{db_id}/auth/generate', 'put', 'responses', '200'],
      GeneratedTokenSchema,
    ],
  ];

  describe.each(successes)('%s', (_name, file, keys, schema) => {
    it.each(MODES)('reads an answer with %s', (mode) => {
      const document = fixture(file);
      expectReads(schema, instance(jsonSchemaOf(at(document, ...keys)), mode, document), mode);
    });
  });

  it.each([
    ['01-videolibrary-create.json', ['placeholder_example', '201'], VideoLibrarySchema],
    ['02-apikey-list.json', ['placeholder_example', '200'], ApiKeyListSchema],
    [
      '04-shield-bot-detection-patch.json',
      ['placeholder_example', '200'],
      shieldEnvelope(BotDetectionConfigSchema),
    ],
    ['07-dnszone-list.json', ['docs_rendered_example', '200'], DnsZoneListSchema],
    ['08-shield-waf-enums.json', ['placeholder_example', '200'], WafEnumsResponseSchema],
    ['10-database-token-management.json', ['placeholder_example', 'generate_200'], GeneratedTokenSchema],
  ] as [string, string[], z.ZodType][])('reads the example %s › %s', (file, keys, schema) => {
    expectReads(schema, at(fixture(file), ...keys), keys.join(' › '));
  });

  it('finds no failure in a successful bot-detection envelope, whatever it leaves out', () => {
    const document = fixture('04-shield-bot-detection-patch.json');
    const schema = jsonSchemaOf(at(document, 'openapi_operation', 'responses', '200'));
    for (const mode of MODES) {
      const envelope = shieldEnvelope(BotDetectionConfigSchema).parse(instance(schema, mode, document));
      expect(shieldEnvelopeFailure('shield.botDetection', 200, envelope.error), mode).toBeUndefined();
    }
  });

  describe('GET {logging_url}/{pullZoneId}/{MM-dd-yyyy}', () => {
    const document = () => fixture('06-origin-errors-logs.json');
    const openapi = () => at(document(), 'openapi_document');
    const logResponse = () => at(openapi(), 'components', 'schemas', 'LogResponse');

    /** The body as the report worker reads it: split into entries, each checked like OriginLogEntrySchema. */
    function readDay(body: unknown) {
      const splitter = new JsonArraySplitter('logs');
      const entries = splitter.push(Buffer.from(JSON.stringify(body)));
      splitter.end();
      return { entries, listed: splitter.listed };
    }

    it.each(MODES)('reads a day with %s', (mode) => {
      const { entries } = readDay(instance(logResponse(), mode, openapi()));
      for (const entry of entries) {
        expectReads(OriginLogEntrySchema, entry, mode);
        expect(isOriginEntry(entry), mode).toBe(true);
      }
    });

    it('reads the documented example, entry by entry', () => {
      const { entries, listed } = readDay(at(document(), 'documented_example', '200'));
      expect(listed).toBe(true);
      expect(entries).toHaveLength(1);
      expect(isOriginEntry(entries[0])).toBe(true);
    });

    it('reads a body without logs (the vendor does not require it) as no entries', () => {
      expect(readDay(instance(logResponse(), 'required fields only', openapi()))).toEqual({
        entries: [],
        listed: false,
      });
    });
  });

  describe('error bodies', () => {
    it('shows the documented ApiErrorData example with its message, field and key', () => {
      const body = at(fixture('01-videolibrary-create.json'), 'documented_error_example', 'body');
      const error = errorOf(400, body);
      expect(error.kind).toBe('bad-request');
      expect(error.userMessage).toBe(
        'The requested Pull Zone was not found Field: PullZone. (pullZone.not_found)',
      );
    });

    it('words an ApiErrorData whose message is null by its key', () => {
      const error = errorOf(400, { ErrorKey: 'pullZone.not_found', Field: null, Message: null });
      expect(error.userMessage).toBe(
        'The pull zone was not found on the platform; check the id. (pullZone.not_found)',
      );
    });

    it.each([
      ['PATCH bot-detection', '04-shield-bot-detection-patch.json', 'openapi_operation'],
      ['GET bot-detection', '04-shield-bot-detection-patch.json', 'openapi_operation_get_same_path'],
    ])('%s: every error status the vendor lists gives a typed error with a message', (_name, file, key) => {
      const document = fixture(file);
      for (const [status, response] of Object.entries(at(document, key, 'responses'))) {
        if (Number(status) < 400) continue;
        const content = asObject(asObject(response).content);
        const bodies = content['application/json']
          ? MODES.map((mode) => instance(jsonSchemaOf(asObject(response)), mode, document))
          : [undefined];
        for (const body of bodies) {
          const error = errorFromResponse(
            { operation: 'shield.botDetection' },
            Number(status),
            body === undefined ? '' : JSON.stringify(body),
          );
          expect(error).toBeInstanceOf(PlatformError);
          expect(error.kind, `${status} ${JSON.stringify(body)}`).not.toBe('invalid-response');
          expect(error.userMessage.length).toBeGreaterThan(10);
        }
      }
    });

    it('explains the observed errorKey of a Shield envelope whose message is null', () => {
      const observed = String(at(fixture('00-error-shapes.json'), 'shield_envelope').observed_errorKey);
      const errorKey = observed.split(' ')[0]!;
      expect(errorKey).toBe('invalid_plan_type.bot_detection');
      const error = errorOf(403, {
        error: { statusCode: 403, success: false, message: null, errorKey },
        data: null,
      });
      expect(error.kind).toBe('shield-error');
      expect(error.userMessage).toContain('does not include bot detection');
      expect(error.userMessage).toContain(errorKey);
      // The GET answers 202 with the same key: a failure even with a success status.
      const accepted = shieldEnvelopeFailure('shield.botDetection', 202, {
        statusCode: 202,
        success: false,
        message: null,
        errorKey,
      });
      expect(accepted?.userMessage).toContain('does not include bot detection');
    });

    it('shows a problem document whose every field is null as a refusal with its status', () => {
      const document = fixture('09-shield-event-logs-export.json');
      const schema = jsonSchemaOf(at(document, 'openapi_operation', 'responses', '400'));
      const error = errorOf(400, instance(schema, 'every nullable null', document));
      expect(error.kind).toBe('bad-request');
      expect(error.userMessage).toContain('HTTP 400');
      expect(errorOf(400, at(document, 'placeholder_example', '400')).kind).toBe('problem');
    });

    it('shows the field errors of a problem document with a title and a list of errors, no detail', () => {
      const shape = at(fixture('00-error-shapes.json'), 'magic_containers_rfc7807', 'schema');
      expect(Object.keys(shape)).toEqual(expect.arrayContaining(['title', 'errors']));
      const error = errorOf(400, {
        title: 'Validation failed',
        status: 400,
        errors: [{ field: 'name', message: 'is required' }],
      });
      expect(error.userMessage).toBe('Validation failed. name: is required');
    });

    it('maps the WAF enums status object and the database AppError', () => {
      const waf = fixture('08-shield-waf-enums.json');
      expect(errorOf(401, at(waf, 'placeholder_example', '401')).kind).toBe('unauthorized');
      expect(errorOf(403, { statusCode: 403 }).kind).toBe('forbidden');
      const appError = at(
        fixture('10-database-token-management.json'),
        'placeholder_example',
        'error_AppError',
      );
      const error = errorOf(400, appError);
      expect(error.kind).toBe('database-api');
      expect(error.userMessage).toBe('The database API said: <string>');
    });
  });
});

describe.skipIf(!available)('the sandbox’s own vendor rules follow the published schemas', () => {
  it('nulls exactly the DNS zone and record fields the vendor marks nullable', () => {
    const document = fixture('07-dnszone-list.json');
    const zone = at(
      jsonSchemaOf(at(document, 'openapi_operation', 'responses', '200')),
      'properties',
      'Items',
      'items',
    );
    const record = at(zone, 'properties', 'Records', 'items');
    expect([...DNS_ZONE_NULLABLE].sort()).toEqual(nullableFields(zone));
    expect([...DNS_RECORD_NULLABLE].sort()).toEqual(nullableFields(record));
  });
});
