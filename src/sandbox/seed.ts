/**
 * The sandbox account: API keys, DNS zones with records, pull zones, Shield zones and WAF enums.
 * Everything derives from the seed, so two sandboxes started with the same seed list the same data.
 */
import { createRandom } from './random.js';

/** Ids that tests, the console and benchmarks can rely on without listing anything first. */
export const SEEDED_IDS = {
  /** The busiest pull zone: a few hundred origin errors a day, hostile URLs and malformed entries. */
  pullZone: 308006,
  mediaPullZone: 410112,
  apiPullZone: 410113,
  /** A pull zone with no origin errors on any day. */
  quietPullZone: 410114,
  /** A pull zone whose every log day holds 1,000,000 entries, generated while streaming. */
  bigPullZone: 900001,
  /** A Shield zone whose plan includes bot detection. */
  shieldZone: 5101,
  /** A Shield zone on a plan without bot detection. */
  basicShieldZone: 5102,
  /** A Shield zone whose export streams about 200 MB. */
  bigShieldZone: 5900,
  /** The DNS zone holding records whose values try to ping a Slack channel. */
  hostileDnsZone: 710002,
} as const;

/** Origin errors per day for the seeded pull zones (±40 % from day to day). */
export const ORIGIN_ERRORS_PER_DAY: Readonly<Record<number, number>> = {
  [SEEDED_IDS.pullZone]: 240,
  [SEEDED_IDS.mediaPullZone]: 120,
  [SEEDED_IDS.apiPullZone]: 60,
  [SEEDED_IDS.quietPullZone]: 0,
};
export const BIG_LOG_DAY_ENTRIES = 1_000_000;
export const BIG_EXPORT_BYTES = 200_000_000;

export interface PullZone {
  id: number;
  name: string;
  securityKey: string;
  originUrl: string;
  hostnames: string[];
}

export interface ShieldZone {
  id: number;
  pullZoneId: number;
  /** 0 = Basic (no bot detection), 1 = Advanced. */
  planType: 0 | 1;
}

export interface SeededApiKey {
  Id: number;
  Key: string;
  Roles: string[];
}

export interface DnsRecord {
  Id: number;
  Type: number;
  Ttl: number;
  Value: string;
  Name: string;
  Weight: number;
  Priority: number;
  Port: number;
  Flags: number;
  Tag: string;
  Accelerated: boolean;
  AcceleratedPullZoneId: number;
  LinkName: string;
  IPGeoLocationInfo: {
    CountryCode: string;
    Country: string;
    ASN: number;
    OrganizationName: string;
    City: string;
  } | null;
  GeolocationInfo: { Country: string; City: string; Latitude: number; Longitude: number } | null;
  MonitorStatus: number;
  MonitorType: number;
  GeolocationLatitude: number;
  GeolocationLongitude: number;
  EnviromentalVariables: { Name: string; Value: string }[];
  LatencyZone: string;
  SmartRoutingType: number;
  Disabled: boolean;
  Comment: string;
  AutoSslIssuance: boolean;
  AccelerationStatus: number;
}

export interface DnsZone {
  Id: number;
  Domain: string;
  Records: DnsRecord[];
  DateModified: string;
  DateCreated: string;
  NameserversDetected: boolean;
  CustomNameserversEnabled: boolean;
  Nameserver1: string;
  Nameserver2: string;
  SoaEmail: string;
  NameserversNextCheck: string;
  LoggingEnabled: boolean;
  LoggingIPAnonymizationEnabled: boolean;
  LogAnonymizationType: number;
  DnsSecEnabled: boolean;
  CertificateKeyType: number;
}

export interface WafEnumValue {
  optionalInput: boolean | null;
  isPremium: boolean;
  name: string;
  value: number;
  supportedValues: { values: string[] | null; editable: boolean };
  recommendedOperator: { operator: number; values: string[] | null };
}

export interface WafEnum {
  enumName: string;
  enumValues: WafEnumValue[];
}

export interface SeedData {
  apiKeys: SeededApiKey[];
  dnsZones: DnsZone[];
  pullZones: PullZone[];
  shieldZones: ShieldZone[];
  wafEnums: WafEnum[];
}

const ROLE_SETS: readonly string[][] = [
  ['UserApi'],
  ['UserApi', 'SubuserAPIManage'],
  ['SubuserAPIStream'],
  ['SubuserStream', 'SubuserAPIStream'],
  ['SubuserAPIPullZones'],
  ['SubuserAPIDns'],
  ['SubuserAPIStorage', 'SubuserAPIPullZones'],
  ['ScopedApiKey'],
  ['SubuserManage'],
  ['SubuserAPIBilling'],
  ['SubuserAPIDns', 'SubuserAPIPullZones', 'SubuserAPIStream'],
];

function seedApiKeys(seed: number, accountKey: string): SeededApiKey[] {
  const random = createRandom(seed, 'api-keys');
  const keys: SeededApiKey[] = [{ Id: 101, Key: accountKey, Roles: ['User', 'UserApi'] }];
  ROLE_SETS.forEach((roles, index) => {
    keys.push({ Id: 102 + index, Key: `${random.uuid()}${random.uuid()}`.replace(/-/g, ''), Roles: roles });
  });
  return keys;
}

const A_GEO = {
  CountryCode: 'DE',
  Country: 'Germany',
  ASN: 64500,
  OrganizationName: 'Example Hosting GmbH',
  City: 'Falkenstein',
};

type RecordSpec = Partial<DnsRecord> & Pick<DnsRecord, 'Type' | 'Name' | 'Value'>;

function buildRecord(id: number, spec: RecordSpec): DnsRecord {
  return {
    Id: id,
    Ttl: 300,
    Weight: 100,
    Priority: 0,
    Port: 0,
    Flags: 0,
    Tag: '',
    Accelerated: false,
    AcceleratedPullZoneId: 0,
    LinkName: '',
    IPGeoLocationInfo: spec.Type === 0 || spec.Type === 1 ? A_GEO : null,
    GeolocationInfo: null,
    MonitorStatus: 0,
    MonitorType: 0,
    GeolocationLatitude: 0,
    GeolocationLongitude: 0,
    EnviromentalVariables: [],
    LatencyZone: '',
    SmartRoutingType: 0,
    Disabled: false,
    Comment: '',
    AutoSslIssuance: true,
    AccelerationStatus: 0,
    ...spec,
  };
}

/** Record type codes 0–15 all appear, plus 99, a code the published enum does not list. */
const ZONE_SPECS: readonly { domain: string; records: RecordSpec[]; dnssec?: boolean; logging?: boolean }[] =
  [
    {
      domain: 'edgeops.dev',
      logging: true,
      records: [
        { Type: 0, Name: '', Value: '203.0.113.10', MonitorType: 2, MonitorStatus: 1 },
        { Type: 1, Name: '', Value: '2001:db8::10' },
        { Type: 2, Name: 'www', Value: 'edgeops.dev' },
        { Type: 3, Name: '', Value: 'v=spf1 include:_spf.example.net ~all' },
        { Type: 4, Name: '', Value: 'mail.edgeops.dev', Priority: 10 },
        { Type: 9, Name: '', Value: 'letsencrypt.org', Flags: 0, Tag: 'issue' },
        { Type: 12, Name: 'sub', Value: 'ns1.example-dns.net' },
      ],
    },
    {
      domain: 'shop-example.com',
      records: [
        { Type: 0, Name: '', Value: '198.51.100.20', Weight: 50, SmartRoutingType: 1, LatencyZone: 'DE' },
        { Type: 0, Name: '', Value: '198.51.100.21', Weight: 50, SmartRoutingType: 1, LatencyZone: 'NY' },
        {
          Type: 7,
          Name: 'cdn',
          Value: 'shop-cdn.b-cdn.net',
          LinkName: 'shop-cdn',
          Accelerated: true,
          AcceleratedPullZoneId: SEEDED_IDS.mediaPullZone,
          AccelerationStatus: 3,
        },
        { Type: 5, Name: 'old', Value: 'https://shop-example.com/new' },
        { Type: 3, Name: 'announce', Value: '<!channel>', Comment: 'left by a pentest' },
        { Type: 3, Name: 'team', Value: '<@U123> & friends' },
        { Type: 8, Name: '_sip._tcp', Value: 'sip.shop-example.com', Priority: 10, Weight: 5, Port: 5060 },
      ],
    },
    {
      domain: 'static-example.net',
      dnssec: true,
      records: [
        { Type: 6, Name: '', Value: 'static-origin.example.org' },
        { Type: 14, Name: '', Value: '1 . alpn="h3,h2" ipv4hint=203.0.113.30' },
        { Type: 13, Name: '_dns', Value: '1 dns.static-example.net. alpn="dot"' },
        {
          Type: 15,
          Name: '_443._tcp',
          Value: '3 1 1 0c72ac70b745ac19998811b131d662c9ac69dbdbe7cb23e5b514b56664c5d3d6',
        },
        { Type: 10, Name: '30.113.0.203.in-addr.arpa', Value: 'static-example.net' },
        {
          Type: 11,
          Name: 'api',
          Value: '',
          LinkName: 'edge-script-2041',
          EnviromentalVariables: [{ Name: 'REGION', Value: 'eu' }],
        },
        { Type: 99, Name: 'future', Value: 'a record type this client has never seen' },
      ],
    },
    {
      domain: 'api-example.org',
      logging: true,
      records: [
        {
          Type: 0,
          Name: 'api',
          Value: '203.0.113.40',
          SmartRoutingType: 2,
          GeolocationInfo: { Country: 'US', City: 'New York', Latitude: 40.71, Longitude: -74.0 },
          GeolocationLatitude: 40.71,
          GeolocationLongitude: -74.0,
        },
        { Type: 2, Name: 'docs', Value: 'api-example.org.readthedocs.example' },
        { Type: 3, Name: '_dmarc', Value: 'v=DMARC1; p=quarantine; rua=mailto:dmarc@api-example.org' },
      ],
    },
    {
      domain: 'mail-example.io',
      records: [
        { Type: 4, Name: '', Value: 'mx1.mail-example.io', Priority: 10 },
        { Type: 4, Name: '', Value: 'mx2.mail-example.io', Priority: 20 },
        {
          Type: 3,
          Name: 'default._domainkey',
          Value: 'v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC',
        },
        { Type: 0, Name: 'mx1', Value: '192.0.2.11', Disabled: true, Comment: 'retired' },
      ],
    },
    {
      domain: 'video-example.tv',
      records: [
        { Type: 7, Name: 'play', Value: 'video-cdn.b-cdn.net', LinkName: 'video-cdn' },
        { Type: 2, Name: 'www', Value: 'video-example.tv' },
      ],
    },
    { domain: 'parked-example.org', records: [] },
    {
      domain: 'legacy-example.co.uk',
      dnssec: true,
      records: [
        { Type: 0, Name: '', Value: '192.0.2.50' },
        { Type: 5, Name: 'www', Value: 'https://legacy-example.co.uk/' },
      ],
    },
    {
      domain: 'status-example.dev',
      records: [{ Type: 0, Name: '', Value: '203.0.113.77', MonitorType: 1, MonitorStatus: 2 }],
    },
    {
      domain: 'blog-example.dev',
      records: [
        { Type: 2, Name: '', Value: 'blog-host.example.net' },
        { Type: 3, Name: '', Value: 'google-site-verification=Zm9vYmFyYmF6' },
      ],
    },
    { domain: 'large-example.com', records: largeZoneRecords() },
  ];

/**
 * A zone too big for one message: 120 records, with DKIM keys and an SPF policy longer than any
 * table column, as real mail domains have.
 */
function largeZoneRecords(): RecordSpec[] {
  const dkim = (selector: string) =>
    `v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${selector.padEnd(8, 'x')}${'q7Lw3Zk9Rt2Vb8Nf'.repeat(20)}IDAQAB`;
  const spf = `v=spf1 ${Array.from({ length: 12 }, (_, i) => `ip4:198.51.100.${10 + i}`).join(' ')} include:_spf.example.net ~all`;
  const records: RecordSpec[] = [
    { Type: 3, Name: '', Value: spf },
    { Type: 3, Name: 'mail._domainkey', Value: dkim('mail') },
    { Type: 3, Name: 'news._domainkey', Value: dkim('news') },
  ];
  for (let i = 1; records.length < 120; i++)
    records.push({ Type: 0, Name: `host-${String(i).padStart(3, '0')}`, Value: `203.0.113.${i % 250}` });
  return records;
}

/** ISO 8601 without milliseconds, as the vendor writes dates. */
export const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function seedDnsZones(seed: number): DnsZone[] {
  const random = createRandom(seed, 'dns');
  let recordId = 9_100_000;
  // Fixed dates rather than the clock, so listings stay identical from run to run.
  const base = Date.UTC(2025, 0, 15, 9, 30, 0);
  return ZONE_SPECS.map((spec, index) => {
    const created = base + index * 86_400_000 * 11 + random.int(86_400_000);
    const modified = created + random.int(90) * 86_400_000;
    return {
      Id: 710001 + index,
      Domain: spec.domain,
      Records: spec.records.map((record) => buildRecord(recordId++, record)),
      DateModified: isoSeconds(modified),
      DateCreated: isoSeconds(created),
      NameserversDetected: index % 4 !== 3,
      CustomNameserversEnabled: index === 2,
      Nameserver1: index === 2 ? 'ns1.static-example.net' : 'kiki.bunny.net',
      Nameserver2: index === 2 ? 'ns2.static-example.net' : 'coco.bunny.net',
      SoaEmail: `hostmaster@${spec.domain}`,
      NameserversNextCheck: isoSeconds(modified + 3_600_000),
      LoggingEnabled: spec.logging ?? false,
      LoggingIPAnonymizationEnabled: spec.logging ?? false,
      LogAnonymizationType: 0,
      DnsSecEnabled: spec.dnssec ?? false,
      CertificateKeyType: 0,
    };
  });
}

function seedPullZones(seed: number): PullZone[] {
  const random = createRandom(seed, 'pull-zones');
  const zones: [number, string][] = [
    [SEEDED_IDS.pullZone, 'www-example'],
    [SEEDED_IDS.mediaPullZone, 'media-cdn'],
    [SEEDED_IDS.apiPullZone, 'api-edge'],
    [SEEDED_IDS.quietPullZone, 'quiet-static'],
    [SEEDED_IDS.bigPullZone, 'firehose'],
  ];
  return zones.map(([id, name]) => ({
    id,
    name,
    securityKey: random.uuid(),
    originUrl: `https://origin.${name}.example.com`,
    hostnames: [`${name}.b-cdn.net`, `${name.replace(/-.*/, '')}.example.com`],
  }));
}

const SHIELD_ZONES: readonly ShieldZone[] = [
  { id: SEEDED_IDS.shieldZone, pullZoneId: SEEDED_IDS.pullZone, planType: 1 },
  { id: SEEDED_IDS.basicShieldZone, pullZoneId: SEEDED_IDS.mediaPullZone, planType: 0 },
  { id: SEEDED_IDS.bigShieldZone, pullZoneId: SEEDED_IDS.bigPullZone, planType: 1 },
];

const value = (
  name: string,
  code: number,
  operator: number,
  extra: Partial<WafEnumValue> = {},
): WafEnumValue => ({
  optionalInput: false,
  isPremium: false,
  name,
  value: code,
  supportedValues: { values: null, editable: true },
  recommendedOperator: { operator, values: null },
  ...extra,
});

/** Operator codes follow the published enum: 0 BEGINSWITH … 5 EQ … 12 WITHIN, 14 RX, 15 STREQ, 17 DETECTSQLI, 18 DETECTXSS. */
const WAF_ENUMS: readonly WafEnum[] = [
  {
    enumName: 'Variable',
    enumValues: [
      value('REQUEST_URI', 0, 2),
      value('REQUEST_URI_RAW', 1, 2),
      value('ARGS', 2, 17),
      value('ARGS_COMBINED_SIZE', 3, 7),
      value('ARGS_GET', 4, 18),
      value('ARGS_GET_NAMES', 5, 15),
      value('ARGS_POST', 6, 17),
      value('REQUEST_HEADERS', 9, 2, { optionalInput: true }),
      value('REQUEST_HEADERS_NAMES', 10, 15),
      value('REMOTE_ADDR', 11, 12),
      value('REQUEST_METHOD', 14, 12, {
        supportedValues: {
          values: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
          editable: false,
        },
        recommendedOperator: { operator: 12, values: ['POST', 'PUT', 'DELETE'] },
      }),
      value('REQUEST_COOKIES', 15, 2, { optionalInput: true }),
      value('GEO', 19, 12, {
        optionalInput: true,
        supportedValues: { values: ['COUNTRY_CODE', 'ASN', 'CONTINENT'], editable: false },
      }),
      value('RESPONSE_STATUS', 22, 5, { isPremium: true }),
      value('FINGERPRINT', 24, 15, { isPremium: true }),
    ],
  },
  {
    enumName: 'Operator',
    enumValues: [
      value('BEGINSWITH', 0, 0),
      value('ENDSWITH', 1, 1),
      value('CONTAINS', 2, 2),
      value('CONTAINSWORD', 3, 3),
      value('STRMATCH', 4, 4),
      value('EQ', 5, 5),
      value('GE', 6, 6),
      value('GT', 7, 7),
      value('LE', 8, 8),
      value('LT', 9, 9),
      value('WITHIN', 12, 12),
      value('RX', 14, 14, { isPremium: true }),
      value('STREQ', 15, 15),
      value('DETECTSQLI', 17, 17),
      value('DETECTXSS', 18, 18),
    ],
  },
  {
    enumName: 'Transformation',
    enumValues: [
      value('CMDLINE', 1, 2),
      value('COMPRESSWHITESPACE', 2, 2),
      value('CSSDECODE', 3, 2),
      value('HEXENCODE', 4, 2),
      value('HTMLENTITYDECODE', 5, 18),
      value('JSDECODE', 6, 18),
      value('LENGTH', 7, 7),
      value('LOWERCASE', 8, 2),
      value('MD5', 9, 15, { isPremium: true }),
      value('NORMALIZEPATH', 10, 0),
      value('REMOVENULLS', 13, 2),
      value('URLDECODE', 16, 17),
      value('UTF8TOUNICODE', 18, 2),
    ],
  },
  {
    enumName: 'Action',
    enumValues: [
      value('Block', 1, 5),
      value('Log', 2, 5),
      value('Challenge', 3, 5),
      value('Allow', 4, 5),
      value('ManagedChallenge', 5, 5, { isPremium: true }),
    ],
  },
  {
    enumName: 'Severity',
    enumValues: [value('Info', 0, 5), value('Warning', 1, 5), value('Error', 2, 5), value('Critical', 3, 5)],
  },
];

export function createSeedData(seed: number, accountKey: string): SeedData {
  return {
    apiKeys: seedApiKeys(seed, accountKey),
    dnsZones: seedDnsZones(seed),
    pullZones: seedPullZones(seed),
    shieldZones: SHIELD_ZONES.map((zone) => ({ ...zone })),
    wafEnums: structuredClone([...WAF_ENUMS]),
  };
}
