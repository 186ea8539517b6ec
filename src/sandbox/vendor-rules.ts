/**
 * What the platform accepts and what it may answer, as the vendor publishes it
 * (shared/spec/platform-api.md and shared/reference/platform-fixtures), written out for the
 * sandbox alone. The bot's client keeps its own schemas (src/platform/schemas.ts); the sandbox
 * never uses them, so a client that drifts from the vendor's rules is refused or surprised here
 * as it would be by the platform, instead of being mirrored.
 *
 * Choices where the vendor is silent: a bot-detection PATCH must carry every field (whether an
 * omitted one keeps its value is not shown), and a `cidr` filter value must be a real IPv4 or
 * IPv6 range ("cidr (ip only, IPv4/IPv6)" in the export request's description).
 */
import { z } from 'zod';
import { isCidrRange } from './ip.js';

// ---------------------------------------------------------------- list queries (references 02, 07)

const page = z.number().int().min(1).max(2147483647).default(1);
const perPage = z.number().int().min(5).max(1000);

export const PagingQuerySchema = z.strictObject({ page, perPage });

/** DnsViewType: 0 = Full, 1 = Lite. */
export const DNS_LITE_VIEW = 1;

export const DnsZoneQuerySchema = z.strictObject({
  page,
  perPage,
  search: z.string().optional(),
  view: z.union([z.literal(0), z.literal(DNS_LITE_VIEW)]).default(0),
});

// ---------------------------------------------------------------- video library (reference 01)

const RESOLUTIONS = ['240p', '360p', '480p', '720p', '1080p', '1440p', '2160p'];
const CODECS = ['x264', 'vp9', 'hevc', 'av1'];

/** A comma-separated list of allowed words; EnabledResolutions must name at least one. */
const wordList = (allowed: readonly string[], what: string, atLeastOne: boolean) =>
  z.string().superRefine((value, ctx) => {
    if (atLeastOne && value.trim() === '') {
      ctx.addIssue({ code: 'custom', message: `at least one ${what} must be enabled` });
      return;
    }
    for (const item of value.split(',').map((word) => word.trim())) {
      if (!allowed.includes(item))
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(item)} is not a ${what}; use ${allowed.join(', ')}`,
        });
    }
  });

const flag = z.boolean().nullish();

/** VideoLibraryCreateModel: no additional properties; only Name is required. */
export const VideoLibraryCreateBodySchema = z.strictObject({
  Name: z.string().min(1, { error: 'Name must have at least 1 character' }),
  ReplicationRegions: z.array(z.string()).nullish(),
  PlayerVersion: z.number().int().min(-2147483648).max(2147483647).nullish(),
  EncodingTier: z.union([z.literal(0), z.literal(1)]).nullish(),
  JitEncodingEnabled: flag,
  OutputCodecs: wordList(CODECS, 'codec', false).nullish(),
  EnabledResolutions: wordList(RESOLUTIONS, 'resolution', true).nullish(),
  BlockNoneReferrer: flag,
  EnableMP4Fallback: flag,
  KeepOriginalFiles: flag,
  AllowDirectPlay: flag,
  EnableMultiAudioTrackSupport: flag,
  EnableTranscribing: flag,
  TranscribingCaptionLanguages: z.array(z.string()).nullish(),
  EnableTranscribingTitleGeneration: flag,
  EnableTranscribingDescriptionGeneration: flag,
  EnableTranscribingChaptersGeneration: flag,
  EnableTranscribingMomentsGeneration: flag,
  AllowEarlyPlay: flag,
});
export type VideoLibraryCreateBody = z.infer<typeof VideoLibraryCreateBodySchema>;

// ---------------------------------------------------------------- pull zone security key (reference 05)

/** The body is optional; SecurityKey is nullable (the platform then picks one) and 8–36 characters. */
export const ResetSecurityKeyBodySchema = z.strictObject({
  SecurityKey: z.string().min(8).max(36).nullish(),
});

// ---------------------------------------------------------------- Shield bot detection (reference 04)

const sensitivity = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);

export const BotDetectionBodySchema = z.strictObject({
  shieldZoneId: z.number().int().min(-2147483648).max(2147483647),
  executionMode: z.union([z.literal(0), z.literal(1)]),
  requestIntegrity: z.strictObject({ sensitivity }),
  ipAddress: z.strictObject({ sensitivity }),
  browserFingerprint: z.strictObject({
    sensitivity,
    aggression: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
    complexEnabled: z.boolean().nullable(),
  }),
});
/** A Shield zone's bot-detection configuration, as stored and echoed by the sandbox. */
export type BotDetectionConfig = z.infer<typeof BotDetectionBodySchema>;

// ---------------------------------------------------------------- Shield event-log export (reference 09)

export const EXPORT_FIELDS = [
  'feature',
  'ruleId',
  'ip',
  'ja4',
  'ua',
  'url',
  'asn',
  'country',
  'action',
] as const;
export const EXPORT_OPS = ['eq', 'in', 'contains', 'cidr', 'wildcard'] as const;
const EXPORT_WINDOW_MS = 72 * 3_600_000;

const ExportFilterSchema = z
  .strictObject({
    field: z.enum(EXPORT_FIELDS),
    op: z.enum(EXPORT_OPS),
    value: z.array(z.string()).min(1),
  })
  .superRefine((clause, ctx) => {
    if (clause.op !== 'cidr') return;
    if (clause.field !== 'ip')
      ctx.addIssue({
        code: 'custom',
        path: ['op'],
        message: 'the cidr operator applies to the ip field only',
      });
    clause.value.forEach((value, index) => {
      if (!isCidrRange(value))
        ctx.addIssue({
          code: 'custom',
          path: ['value', index],
          message: `${JSON.stringify(value)} is not an IPv4 or IPv6 CIDR range`,
        });
    });
  });
export type ExportFilterClause = z.infer<typeof ExportFilterSchema>;

/** The export body, checked against the platform's clock. */
export const exportBodySchema = (now: number) =>
  z
    .strictObject({
      from: z.number().int().nonnegative(),
      to: z.number().int().nonnegative(),
      query: z.string().nullish(),
      filters: z.array(ExportFilterSchema).nullish(),
    })
    .superRefine((body, ctx) => {
      if (body.to <= body.from)
        ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
      if (body.from < now - EXPORT_WINDOW_MS || body.to < now - EXPORT_WINDOW_MS)
        ctx.addIssue({
          code: 'custom',
          path: ['from'],
          message: 'the window must lie within the last 72 hours',
        });
      if (body.to > now + 60_000)
        ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be in the future' });
    });

// ---------------------------------------------------------------- database tokens (reference 10)

export const TOKEN_AUTHORIZATIONS = ['full-access', 'read-only'] as const;
export type TokenAuthorization = (typeof TOKEN_AUTHORIZATIONS)[number];

export const GenerateTokenBodySchema = z.object({
  authorization: z.enum(TOKEN_AUTHORIZATIONS),
  expires_at: z.iso.datetime({ offset: true }).nullish(),
});

// ---------------------------------------------------------------- nullable answer fields (reference 07)

/** The fields of a DNS zone the vendor marks nullable. */
export const DNS_ZONE_NULLABLE = [
  'Domain',
  'Records',
  'Nameserver1',
  'Nameserver2',
  'SoaEmail',
  'LogAnonymizationType',
] as const;

/** The fields of a DNS record the vendor marks nullable. */
export const DNS_RECORD_NULLABLE = [
  'Value',
  'Name',
  'Tag',
  'LinkName',
  'IPGeoLocationInfo',
  'GeolocationInfo',
  'EnviromentalVariables',
  'LatencyZone',
  'Comment',
] as const;

const withNulls = <T extends object>(value: T, fields: readonly string[]): T => ({
  ...value,
  ...Object.fromEntries(fields.map((field) => [field, null])),
});

/**
 * A zone with every nullable field null, its records' too, except `Records` itself, which is
 * null only where the zone would have sent an empty list (the Lite view).
 */
export function dnsZoneWithNulls<Z extends { Records: readonly object[] }>(zone: Z): Record<string, unknown> {
  const records = zone.Records.map((record) => withNulls(record, DNS_RECORD_NULLABLE));
  return {
    ...withNulls(zone, DNS_ZONE_NULLABLE),
    Records: records.length > 0 ? records : null,
  };
}
