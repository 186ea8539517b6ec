import { z } from 'zod';
import { type DnsRecord, DnsView, type DnsZone, dnsRecordTypeName } from '../../platform/schemas.js';
import { MESSAGE_BUDGET } from '../../reply/budget.js';
import { md, nest, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyMenuOption, type ReplyTable } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith, type RunContext } from '../engine/types.js';
import {
  lastPageInstead,
  PagingArgsSchema,
  pageFacts,
  pagingButtons,
  pagingFlags,
  pastLastPage,
  readPagingState,
} from '../shared/paging.js';
import { tableWithCsv } from '../shared/table-csv.js';

const DnsArgsSchema = PagingArgsSchema.extend({
  search: z
    .string()
    .min(1)
    .max(255, { error: 'the search text is too long (255 characters at most)' })
    .optional(),
  lite: z.boolean().default(false),
});
type DnsArgs = z.infer<typeof DnsArgsSchema>;

/** A zone without a domain (the vendor marks Domain nullable) is found by its id alone. */
const RecordsStateSchema = z.object({
  id: z.number().int().positive(),
  domain: z.string().min(1).max(255).optional(),
});

/** Pages of 1,000 zones read to find a zone that has no domain to search for. */
const MAX_PAGES_WITHOUT_SEARCH = 20;

const yesNo = (value: boolean | undefined) => (value === undefined ? '?' : value ? 'yes' : 'no');

/** How a zone is named to people: its domain, else its id. */
const zoneName = (zone: DnsZone) =>
  zone.Domain ? zone.Domain : zone.Id !== undefined ? `zone ${zone.Id}` : 'a zone without domain or id';

/** One row a zone; the lite view has no records to count. */
function zoneTable(zones: readonly DnsZone[], lite: boolean): ReplyTable {
  return {
    columns: [
      { header: 'Domain', kind: 'text' },
      { header: 'Id', kind: 'text' },
      ...(lite ? [] : [{ header: 'Records', kind: 'number' as const }]),
      { header: 'Nameservers detected', kind: 'text' },
      { header: 'DNSSEC', kind: 'text' },
      { header: 'Logging', kind: 'text' },
    ],
    rows: zones.map((zone) => [
      zone.Domain || '(no domain name)',
      zone.Id === undefined ? 'not given' : String(zone.Id),
      ...(lite ? [] : [zone.Records.length]),
      yesNo(zone.NameserversDetected),
      yesNo(zone.DnsSecEnabled),
      yesNo(zone.LoggingEnabled),
    ]),
  };
}

/** The options a menu takes. */
const MAX_RECORD_OPTIONS = 100;

/** An option's value carries at most 75 characters: the id, and as much of the domain (to search by) as fits. */
function recordsOption(zone: DnsZone): ReplyMenuOption {
  const actionId = 'dns:records';
  // A domain too long is carried as its start: the zone is searched for by it, then picked by id.
  const room =
    MESSAGE_BUDGET.optionValueChars -
    actionId.length -
    1 -
    JSON.stringify({ id: zone.Id, domain: '' }).length;
  let domain = (zone.Domain ?? '').slice(0, Math.max(0, room));
  while (domain && JSON.stringify(domain).length - 2 > room) domain = domain.slice(0, -1);
  const value = JSON.stringify({ id: zone.Id, domain: domain || undefined });
  return { text: zoneName(zone), actionId, value };
}

async function listPage(ctx: RunContext, args: DnsArgs, asked?: number): Promise<Reply> {
  const list = await ctx.services.platform.listDnsZones({
    page: args.page,
    perPage: args.perPage,
    search: args.search,
    view: args.lite ? DnsView.Lite : DnsView.Full,
  });
  const last = lastPageInstead(args.page, list.TotalItems, args.perPage);
  if (last !== undefined) return listPage(ctx, { ...args, page: last }, args.page);
  const { total, where, hasMore } = pageFacts(list, args);
  // A zone without an id cannot be looked up again, so it gets no Records option.
  const findable = list.Items.filter((zone) => zone.Id !== undefined);
  const recordOptions = findable.slice(0, MAX_RECORD_OPTIONS).map(recordsOption);
  const searched = args.search ? md` matching "${args.search}"` : trusted('');
  // More zones than a table shows (--per-page up to 1,000): every row goes to a CSV as well.
  const zones = tableWithCsv(zoneTable(list.Items, args.lite), {
    filename: `dns-zones-page-${args.page}.csv`,
    title: 'DNS zones',
  });
  const reply = ephemeral(
    total === undefined ? `DNS zones, ${where.toLowerCase()}` : counted(total, 'DNS zone'),
    [
      { type: 'header', text: total === undefined ? 'DNS zones' : `DNS zones (${total})` },
      list.Items.length > 0
        ? { type: 'table', table: zones.table }
        : { type: 'text', text: md`_No DNS zones${nest(searched)}._` },
      {
        type: 'context',
        text: md`${where}${nest(searched)}.${pastLastPage(asked, args.page)}${findable.length > recordOptions.length ? ` The Records menu names the first ${recordOptions.length} zones; use --per-page ${recordOptions.length} or a search to reach the others.` : ''}`,
      },
      ...(recordOptions.length > 0
        ? [
            {
              type: 'menu' as const,
              placeholder: 'Records of a zone…',
              groups: [{ label: 'Records', options: recordOptions }],
            },
          ]
        : []),
      { type: 'actions', closing: true, buttons: pagingButtons('dns:page', args, hasMore) },
    ],
  );
  return zones.files.length > 0 ? { ...reply, files: zones.files } : reply;
}

/** The spec has no "get zone" operation: search by domain (or read the pages) and pick the zone by id. */
async function findZone(ctx: RunContext, state: z.infer<typeof RecordsStateSchema>) {
  // A domain searched for may be only its start (a menu option carries 75 characters): read on until the id is found.
  for (let page = 1; page <= MAX_PAGES_WITHOUT_SEARCH; page++) {
    const list = await ctx.services.platform.listDnsZones({
      search: state.domain,
      page,
      perPage: 1000,
      view: DnsView.Full,
    });
    const zone = list.Items.find((item) => item.Id === state.id);
    if (zone || !pageFacts(list, { page, perPage: 1000 }).hasMore) return zone;
  }
  return undefined;
}

/**
 * One row a record, each value whole: a table wraps it (Slack's table block sets no length for a
 * cell), so DKIM keys and SPF policies need no cut.
 */
function recordTable(records: readonly DnsRecord[]): ReplyTable {
  return {
    columns: [
      { header: 'Type', kind: 'text' },
      { header: 'Name', kind: 'text' },
      { header: 'Value', kind: 'text' },
      { header: 'TTL', kind: 'number' },
      { header: 'State', kind: 'text' },
    ],
    rows: records.map((record) => [
      dnsRecordTypeName(record.Type),
      record.Name || '@',
      record.Value ?? '',
      record.Ttl ?? '',
      record.Disabled ? 'disabled' : 'enabled',
    ]),
  };
}

async function records(ctx: RunContext, state: z.infer<typeof RecordsStateSchema>): Promise<Reply> {
  const zone = await findZone(ctx, state);
  const named = state.domain ? `${state.domain} (id ${state.id})` : `with id ${state.id}`;
  if (!zone) throw new UserFacingError(`DNS zone ${named} was not found any more.`);
  const count = counted(zone.Records.length, 'record');
  // More records than a table shows: every one goes to a CSV as well.
  const table = tableWithCsv(recordTable(zone.Records), {
    filename: `dns-records-${(zone.Domain || `zone-${state.id}`).replace(/[^A-Za-z0-9.-]/g, '_')}.csv`,
    title: `DNS records of ${zoneName(zone)}`,
  });
  const reply = ephemeral(`${count} in ${zoneName(zone)}`, [
    { type: 'header', text: `Records of ${zoneName(zone)}` },
    zone.Records.length > 0
      ? { type: 'table', table: table.table }
      : { type: 'text', text: trusted('_This zone has no records._') },
    { type: 'context', text: md`${count} · zone id ${state.id}` },
  ]);
  return table.files.length > 0 ? { ...reply, files: table.files } : reply;
}

/** `/edge dns [SEARCH] [--page N] [--per-page N] [--lite]`: DNS zones, one line each. */
export const dns = defineOperation({
  id: 'dns.list',
  words: ['dns'],
  usage: '/edge dns [SEARCH] [--page N] [--per-page N] [--lite]',
  summary: 'list DNS zones, with a menu for the records of each',
  example: '/edge dns example.com',
  flags: { ...pagingFlags, lite: { kind: 'boolean' } },
  parse: (positionals, flags) =>
    positionals.length > 1
      ? { ok: false, error: 'give at most one search text (quote it if it has spaces)' }
      : parseWith(DnsArgsSchema, {
          search: positionals[0],
          page: flags.page,
          perPage: flags['per-page'],
          lite: flags.lite,
        }),
  target: (args) => args.search,
  run: (ctx, args) => listPage(ctx, args),
  actions: {
    async page(ctx, value) {
      const args = readPagingState(DnsArgsSchema, value);
      if (!args) throw new UserFacingError('That page button is out of date; run /edge dns again.');
      return { ...(await listPage(ctx, args)), replaceOriginal: true };
    },
    async records(ctx, value) {
      const state = readPagingState(RecordsStateSchema, value);
      if (!state) throw new UserFacingError('That button is out of date; run /edge dns again.');
      return records(ctx, state);
    },
  },
});
