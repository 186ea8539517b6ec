/**
 * Wire formats of the platform API (shared/spec/platform-api.md), as zod schemas.
 * Requests are strict (what we send must match the spec exactly). Responses are read as the
 * vendor's published schemas type them (reference/platform-fixtures): a field marked nullable may
 * be null, a field not marked required may be absent, and unknown fields pass.
 * The sandbox keeps its own copy of the vendor's rules (src/sandbox/vendor-rules.ts), so a drift
 * between these schemas and the vendor's shows up in tests instead of being mirrored.
 * Two wire formats live with their readers: the origin-log entry in src/reports/origin/entry.ts,
 * the Hrana value of the customer database in src/database/hrana-value.ts.
 */
import { z } from 'zod';
import { TokenAuthorization } from '../database/token-authorization.js';

// ---------------------------------------------------------------- shared pieces

export const RESOLUTIONS = ['240p', '360p', '480p', '720p', '1080p', '1440p', '2160p'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const OUTPUT_CODECS = ['x264', 'vp9', 'hevc', 'av1'] as const;
export type OutputCodec = (typeof OUTPUT_CODECS)[number];

/** EncodingTier on the wire: 0 = Free, 1 = Premium. */
export const EncodingTier = { Free: 0, Premium: 1 } as const;

/** Comma-separated list whose every item is one of `allowed`; empty items are refused. */
const commaList = (allowed: readonly string[], what: string, atLeastOne: boolean) =>
  z.string().superRefine((value, ctx) => {
    const items = value.split(',').map((item) => item.trim());
    if (atLeastOne && (value.trim() === '' || items.length === 0)) {
      ctx.addIssue({ code: 'custom', message: `at least one ${what} must be enabled` });
      return;
    }
    for (const item of items) {
      if (!allowed.includes(item)) {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(item)} is not a ${what}; use ${allowed.join(', ')}`,
        });
      }
    }
  });

/** The paging query of list API keys and list DNS zones: page ≥ 1, perPage 5–1000. */
export const PagingSchema = z.strictObject({
  page: z.number().int().min(1).max(2147483647).default(1),
  perPage: z.number().int().min(5).max(1000).default(20),
});
export type Paging = z.input<typeof PagingSchema>;

/** The paged envelope of list API keys and list DNS zones; the vendor requires none of its fields. */
export const pagedList = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    Items: z
      .array(item)
      .nullish()
      .transform((items) => items ?? []),
    CurrentPage: z.number().int().optional(),
    TotalItems: z.number().int().optional(),
    HasMoreItems: z.boolean().optional(),
  });

// ---------------------------------------------------------------- 1. video library

export const VideoLibraryCreateSchema = z.strictObject({
  Name: z.string().min(1, { error: 'Name must have at least 1 character' }),
  ReplicationRegions: z.array(z.string()).nullish(),
  PlayerVersion: z.number().int().min(-2147483648).max(2147483647).nullish(),
  EncodingTier: z.union([z.literal(EncodingTier.Free), z.literal(EncodingTier.Premium)]).nullish(),
  JitEncodingEnabled: z.boolean().nullish(),
  OutputCodecs: commaList(OUTPUT_CODECS, 'codec', false).nullish(),
  EnabledResolutions: commaList(RESOLUTIONS, 'resolution', true).nullish(),
  BlockNoneReferrer: z.boolean().nullish(),
  EnableMP4Fallback: z.boolean().nullish(),
  KeepOriginalFiles: z.boolean().nullish(),
  AllowDirectPlay: z.boolean().nullish(),
  EnableMultiAudioTrackSupport: z.boolean().nullish(),
  EnableTranscribing: z.boolean().nullish(),
  TranscribingCaptionLanguages: z.array(z.string()).nullish(),
  EnableTranscribingTitleGeneration: z.boolean().nullish(),
  EnableTranscribingDescriptionGeneration: z.boolean().nullish(),
  EnableTranscribingChaptersGeneration: z.boolean().nullish(),
  EnableTranscribingMomentsGeneration: z.boolean().nullish(),
  AllowEarlyPlay: z.boolean().nullish(),
});
export type VideoLibraryCreate = z.infer<typeof VideoLibraryCreateSchema>;

/** VideoLibraryModel (reference 01): only the fields the product reads; the rest pass untyped. */
export const VideoLibrarySchema = z.looseObject({
  Id: z.number().int().optional(),
  Name: z.string().nullish(),
  PullZoneId: z.number().int().optional(),
  StorageZoneId: z.number().int().optional(),
  ReplicationRegions: z.array(z.string()).nullish(),
  ApiKey: z.string().nullish(),
  ReadOnlyApiKey: z.string().nullish(),
  ApiAccessKey: z.string().nullish(),
  EnabledResolutions: z.string().nullish(),
  OutputCodecs: z.string().nullish(),
  EncodingTier: z.number().int().optional(),
  JitEncodingEnabled: z.boolean().optional(),
  EnableTranscribing: z.boolean().optional(),
  DateCreated: z.string().optional(),
});
export type VideoLibrary = z.infer<typeof VideoLibrarySchema>;

// ---------------------------------------------------------------- 2. API keys

export const ApiKeySchema = z.looseObject({
  Id: z.number().int().optional(),
  Key: z.string().nullish(),
  Roles: z
    .array(z.string())
    .nullish()
    .transform((roles) => roles ?? []),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;
export const ApiKeyListSchema = pagedList(ApiKeySchema);
export type ApiKeyList = z.infer<typeof ApiKeyListSchema>;

// ---------------------------------------------------------------- 4. Shield bot detection

/** 0 = Off, 1 = Low, 2 = Medium, 3 = High. */
export const SENSITIVITY_NAMES = ['Off', 'Low', 'Medium', 'High'] as const;
/** 0 = Unknown, 1 = Low, 2 = Medium, 3 = High, 4 = Custom. */
export const AGGRESSION_NAMES = ['Unknown', 'Low', 'Medium', 'High', 'Custom'] as const;
/** 0 = LogOnly, 1 = Challenge. */
export const EXECUTION_MODE_NAMES = ['LogOnly', 'Challenge'] as const;

const sensitivity = z.number().int().min(0).max(3);

/**
 * The spec shows requestIntegrity and ipAddress as empty objects ("not shown"); the vendor
 * schema (reference 04) gives each a `sensitivity` 0–3 and adds `executionMode` and the
 * fingerprint's `sensitivity` and `aggression`. We send that vendor shape, all fields present:
 * whether omitted fields keep their value is not shown, so we never rely on omission.
 */
export const BotDetectionUpdateSchema = z.strictObject({
  shieldZoneId: z.number().int().positive(),
  executionMode: z.number().int().min(0).max(1),
  requestIntegrity: z.strictObject({ sensitivity }),
  ipAddress: z.strictObject({ sensitivity }),
  browserFingerprint: z.strictObject({
    sensitivity,
    aggression: z.number().int().min(0).max(4),
    complexEnabled: z.boolean(),
  }),
});
export type BotDetectionUpdate = z.infer<typeof BotDetectionUpdateSchema>;

/** The configuration in a bot-detection envelope; the PATCH answer requires none of its fields. */
export const BotDetectionConfigSchema = z.looseObject({
  shieldZoneId: z.number().int().optional(),
  executionMode: z.number().int().optional(),
  requestIntegrity: z.looseObject({ sensitivity: z.number().int().optional() }).optional(),
  ipAddress: z.looseObject({ sensitivity: z.number().int().optional() }).optional(),
  browserFingerprint: z
    .looseObject({
      sensitivity: z.number().int().optional(),
      aggression: z.number().int().optional(),
      complexEnabled: z.boolean().nullish(),
    })
    .optional(),
});
export type BotDetectionConfig = z.infer<typeof BotDetectionConfigSchema>;

/** GenericRequestResponse (reference 00, 04): `message` and `errorKey` are nullable, nothing is required. */
export const ShieldEnvelopeErrorSchema = z.looseObject({
  statusCode: z.number().int().optional(),
  success: z.boolean().optional(),
  message: z.string().nullish(),
  errorKey: z.string().nullish(),
});
export type ShieldEnvelopeError = z.infer<typeof ShieldEnvelopeErrorSchema>;

export const shieldEnvelope = <T extends z.ZodType>(data: T) =>
  z.looseObject({ error: ShieldEnvelopeErrorSchema.nullish(), data: data.nullish() });

// ---------------------------------------------------------------- 5. pull zone security key

/** The vendor schema (reference 05) bounds SecurityKey at 8–36 characters. */
export const ResetSecurityKeySchema = z.strictObject({
  SecurityKey: z.string().min(8).max(36),
});

// ---------------------------------------------------------------- 6. origin error logs

/** The origin-log path carries the date as MM-dd-yyyy. */
export const ORIGIN_LOG_DATE_FORMAT = 'MM-dd-yyyy';

// ---------------------------------------------------------------- 7. DNS zones

/** DNS record type codes (reference 07: DnsRecordTypes). */
export const DNS_RECORD_TYPES: Readonly<Record<number, string>> = {
  0: 'A',
  1: 'AAAA',
  2: 'CNAME',
  3: 'TXT',
  4: 'MX',
  5: 'Redirect',
  6: 'Flatten',
  7: 'PullZone',
  8: 'SRV',
  9: 'CAA',
  10: 'PTR',
  11: 'Script',
  12: 'NS',
  13: 'SVCB',
  14: 'HTTPS',
  15: 'TLSA',
};

export const dnsRecordTypeName = (code: number | undefined): string =>
  code === undefined ? '?' : (DNS_RECORD_TYPES[code] ?? String(code));

/** DnsViewType: 0 = Full, 1 = Lite. */
export const DnsView = { Full: 0, Lite: 1 } as const;

export const DnsZoneQuerySchema = PagingSchema.extend({
  search: z.string().min(1).max(255).optional(),
  view: z.union([z.literal(DnsView.Full), z.literal(DnsView.Lite)]).default(DnsView.Full),
});
export type DnsZoneQuery = z.input<typeof DnsZoneQuerySchema>;

/** A record of a DNS zone (reference 07): nothing is required; the nullable fields are marked so. */
export const DnsRecordSchema = z.looseObject({
  Id: z.number().int().optional(),
  Type: z.number().int().optional(),
  Ttl: z.number().int().optional(),
  Value: z.string().nullish(),
  Name: z.string().nullish(),
  Weight: z.number().int().optional(),
  Priority: z.number().int().optional(),
  Port: z.number().int().optional(),
  Flags: z.number().int().optional(),
  Tag: z.string().nullish(),
  Accelerated: z.boolean().optional(),
  AcceleratedPullZoneId: z.number().int().optional(),
  LinkName: z.string().nullish(),
  IPGeoLocationInfo: z
    .looseObject({
      CountryCode: z.string().nullish(),
      Country: z.string().nullish(),
      ASN: z.number().int().optional(),
      OrganizationName: z.string().nullish(),
      City: z.string().nullish(),
    })
    .nullish(),
  GeolocationInfo: z
    .looseObject({
      Country: z.string().nullish(),
      City: z.string().nullish(),
      Latitude: z.number().optional(),
      Longitude: z.number().optional(),
    })
    .nullish(),
  MonitorStatus: z.number().int().optional(),
  MonitorType: z.number().int().optional(),
  GeolocationLatitude: z.number().optional(),
  GeolocationLongitude: z.number().optional(),
  EnviromentalVariables: z
    .array(z.looseObject({ Name: z.string().nullish(), Value: z.string().nullish() }))
    .nullish(),
  LatencyZone: z.string().nullish(),
  SmartRoutingType: z.number().int().optional(),
  Disabled: z.boolean().optional(),
  Comment: z.string().nullish(),
  AutoSslIssuance: z.boolean().optional(),
  AccelerationStatus: z.number().int().optional(),
});
export type DnsRecord = z.infer<typeof DnsRecordSchema>;

/** A DNS zone (reference 07): `Domain` is nullable, and nothing is required, `Id` included. */
export const DnsZoneSchema = z.looseObject({
  Id: z.number().int().optional(),
  Domain: z.string().nullish(),
  Records: z
    .array(DnsRecordSchema)
    .nullish()
    .transform((records) => records ?? []),
  DateModified: z.string().optional(),
  DateCreated: z.string().optional(),
  NameserversDetected: z.boolean().optional(),
  CustomNameserversEnabled: z.boolean().optional(),
  Nameserver1: z.string().nullish(),
  Nameserver2: z.string().nullish(),
  SoaEmail: z.string().nullish(),
  NameserversNextCheck: z.string().optional(),
  LoggingEnabled: z.boolean().optional(),
  LoggingIPAnonymizationEnabled: z.boolean().optional(),
  LogAnonymizationType: z.number().int().nullish(),
  DnsSecEnabled: z.boolean().optional(),
  CertificateKeyType: z.number().int().optional(),
});
export type DnsZone = z.infer<typeof DnsZoneSchema>;
export const DnsZoneListSchema = pagedList(DnsZoneSchema);
export type DnsZoneList = z.infer<typeof DnsZoneListSchema>;

// ---------------------------------------------------------------- 8. WAF enums

/** recommendedOperator.operator codes (reference 08). */
export const WAF_OPERATORS: Readonly<Record<number, string>> = {
  0: 'BEGINSWITH',
  1: 'ENDSWITH',
  2: 'CONTAINS',
  3: 'CONTAINSWORD',
  4: 'STRMATCH',
  5: 'EQ',
  6: 'GE',
  7: 'GT',
  8: 'LE',
  9: 'LT',
  12: 'WITHIN',
  14: 'RX',
  15: 'STREQ',
  17: 'DETECTSQLI',
  18: 'DETECTXSS',
};

/** A WAF enumeration value (reference 08): nothing is required. */
export const WafEnumValueSchema = z.looseObject({
  optionalInput: z.boolean().nullish(),
  isPremium: z.boolean().default(false),
  name: z.string().nullish(),
  value: z.number().int().optional(),
  supportedValues: z
    .looseObject({ values: z.array(z.string()).nullish(), editable: z.boolean().optional() })
    .nullish(),
  recommendedOperator: z
    .looseObject({ operator: z.number().int().optional(), values: z.array(z.string()).nullish() })
    .nullish(),
});
export const WafEnumSchema = z.looseObject({
  enumName: z.string().nullish(),
  enumValues: z
    .array(WafEnumValueSchema)
    .nullish()
    .transform((values) => values ?? []),
});
export type WafEnum = z.infer<typeof WafEnumSchema>;
export const WafEnumsResponseSchema = z.looseObject({
  data: z
    .array(WafEnumSchema)
    .nullish()
    .transform((data) => data ?? []),
});

// ---------------------------------------------------------------- 9. Shield event-log export

export const EXPORT_FILTER_FIELDS = [
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
export const EXPORT_FILTER_OPS = ['eq', 'in', 'contains', 'cidr', 'wildcard'] as const;
/** The export window must end within this many hours of now. */
export const EXPORT_WINDOW_HOURS = 72;

export const ExportFilterSchema = z
  .strictObject({
    field: z.enum(EXPORT_FILTER_FIELDS),
    op: z.enum(EXPORT_FILTER_OPS),
    value: z.array(z.string()).min(1),
  })
  .refine((filter) => filter.op !== 'cidr' || filter.field === 'ip', {
    error: 'the cidr operator applies to the ip field only',
    path: ['op'],
  });
export type ExportFilter = z.infer<typeof ExportFilterSchema>;

/** The export body, checked against `now` so that a stale window is refused before the call. */
export const exportRequestSchema = (now: number) =>
  z
    .strictObject({
      from: z.number().int().nonnegative(),
      to: z.number().int().nonnegative(),
      query: z.string().max(1000).optional(),
      filters: z.array(ExportFilterSchema).optional(),
    })
    .superRefine((body, ctx) => {
      if (body.to <= body.from)
        ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
      const earliest = now - EXPORT_WINDOW_HOURS * 3_600_000;
      if (body.from < earliest || body.to < earliest)
        ctx.addIssue({
          code: 'custom',
          path: ['from'],
          message: `the window must lie within the last ${EXPORT_WINDOW_HOURS} hours`,
        });
      // A minute of slack for clock skew between the bot and the platform.
      if (body.to > now + 60_000)
        ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be in the future' });
    });
export type ExportRequest = z.infer<ReturnType<typeof exportRequestSchema>>;

// ---------------------------------------------------------------- database tokens

export const GenerateTokenRequestSchema = z.strictObject({
  authorization: z.enum(TokenAuthorization),
  expires_at: z.iso.datetime({ offset: true }).nullish(),
});
export type GenerateTokenRequest = z.infer<typeof GenerateTokenRequestSchema>;

export const GeneratedTokenSchema = z.looseObject({
  token: z.string().min(1),
  expires_at: z.string().nullish(),
});
export type GeneratedToken = z.infer<typeof GeneratedTokenSchema>;

/**
 * GET {database_api}/v2/databases/{db} (reference 10): the database record under `db`. Only what
 * names it is read; every field may be absent.
 */
export const DatabaseRecordSchema = z.looseObject({
  db: z
    .looseObject({ id: z.string().nullish(), name: z.string().nullish(), url: z.string().nullish() })
    .nullish(),
});
export type DatabaseRecord = z.infer<typeof DatabaseRecordSchema>;

/** Database ids are `db_<ulid>` on the real service; the sandbox accepts any label of that alphabet. */
export const DatabaseIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'is not a database id' });

// ---------------------------------------------------------------- lists used to find ids (beyond the spec)

/**
 * GET /pullzone?page&perPage&search: the vendor's published list of pull zones (core API, paged
 * like /dnszone). Only what people need to recognise a zone is read; every field may be absent.
 */
export const PullZoneQuerySchema = PagingSchema.extend({ search: z.string().min(1).max(255).optional() });
export type PullZoneQuery = z.input<typeof PullZoneQuerySchema>;

export const PullZoneSummarySchema = z.looseObject({
  Id: z.number().int().optional(),
  Name: z.string().nullish(),
  OriginUrl: z.string().nullish(),
  Enabled: z.boolean().nullish(),
  Suspended: z.boolean().nullish(),
  Hostnames: z
    .array(z.looseObject({ Value: z.string().nullish() }))
    .nullish()
    .transform((hostnames) => (hostnames ?? []).flatMap((h) => (h.Value ? [h.Value] : []))),
});
export type PullZoneSummary = z.infer<typeof PullZoneSummarySchema>;
export const PullZoneListSchema = pagedList(PullZoneSummarySchema);
export type PullZoneList = z.infer<typeof PullZoneListSchema>;

/**
 * GET /pullzone/{id}: the vendor's PullZoneModel also carries the zone's secrets (ZoneSecurityKey,
 * AWSSigningSecret, LogForwardingToken, …). Only what is shown is parsed; a strict-less plain object
 * drops every other key, so no secret outlives the parse.
 */
export const PullZoneDetailSchema = z
  .object({
    Id: z.number().int(),
    Name: z.string().nullish(),
    OriginUrl: z.string().nullish(),
    Hostnames: z
      .array(z.object({ Value: z.string().nullish(), IsSystemHostname: z.boolean().nullish() }))
      .nullish(),
  })
  .transform((zone) => ({
    id: zone.Id,
    name: zone.Name ?? '',
    originUrl: zone.OriginUrl ?? '',
    hostnames: (zone.Hostnames ?? []).flatMap((h) =>
      h.Value ? [{ value: h.Value, system: h.IsSystemHostname === true }] : [],
    ),
  }));
export type PullZoneDetail = z.infer<typeof PullZoneDetailSchema>;

/** Shield plans (the vendor's PlanType): Basic has no bot detection. */
export const SHIELD_PLAN_NAMES: Readonly<Record<number, string>> = {
  0: 'Basic',
  1: 'Advanced',
  2: 'Business',
  3: 'Enterprise',
};

/** GET /shield/shield-zones?page&perPage: the Shield API's envelope, `data` and a `page` object. */
export const ShieldZoneSummarySchema = z.looseObject({
  shieldZoneId: z.number().int().optional(),
  pullZoneId: z.number().int().nullish(),
  planType: z.number().int().nullish(),
  learningMode: z.boolean().nullish(),
  wafEnabled: z.boolean().nullish(),
});
export type ShieldZoneSummary = z.infer<typeof ShieldZoneSummarySchema>;
export const ShieldZoneListSchema = z.looseObject({
  data: z
    .array(ShieldZoneSummarySchema)
    .nullish()
    .transform((zones) => zones ?? []),
  page: z
    .looseObject({
      currentPage: z.number().int().nullish(),
      pageSize: z.number().int().nullish(),
      totalCount: z.number().int().nullish(),
    })
    .nullish(),
  error: ShieldEnvelopeErrorSchema.nullish(),
});
export type ShieldZoneList = z.infer<typeof ShieldZoneListSchema>;

// ---------------------------------------------------------------- error bodies

export const ApiErrorDataSchema = z.looseObject({
  ErrorKey: z.string().nullish(),
  Field: z.string().nullish(),
  Message: z.string().nullish(),
});
/**
 * ProblemDetails (reference 00, 04, 09): every field nullable, extra members allowed. ASP.NET's
 * validation variant adds `errors` (field → messages) and often leaves `detail` out.
 */
export const ProblemDocumentSchema = z.looseObject({
  type: z.string().nullish(),
  title: z.string().nullish(),
  status: z.number().int().nullish(),
  detail: z.string().nullish(),
  instance: z.string().nullish(),
  errors: z.unknown().optional(),
});
/** The `errors` of a validation problem: ASP.NET's map of field → messages, or a list of {field, message}. */
export const ValidationErrorsSchema = z.union([
  z.record(z.string(), z.union([z.array(z.string()), z.string()])),
  z.array(z.looseObject({ field: z.string().nullish(), message: z.string().nullish() })),
]);
export const StatusObjectSchema = z.looseObject({ statusCode: z.number().int().optional() });
export const DatabaseApiErrorSchema = z.looseObject({ error: z.string(), details: z.unknown().optional() });
