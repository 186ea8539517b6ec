/**
 * `/edge pullzones [SEARCH]` and `/edge shield zones`: the ids every incident command needs,
 * found instead of typed from memory: a table, and below it one menu of each zone's next steps.
 */
import { z } from 'zod';
import { type PullZoneSummary, SHIELD_PLAN_NAMES, type ShieldZoneSummary } from '../../platform/schemas.js';
import { MESSAGE_BUDGET } from '../../reply/budget.js';
import { truncate } from '../../reply/escape.js';
import { md, nest, trusted } from '../../reply/markup.js';
import {
  commandButton,
  ephemeral,
  type Reply,
  type ReplyBlock,
  type ReplyButton,
  type ReplyMenuGroup,
  type ReplyTable,
} from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith, type RunContext } from '../engine/types.js';
import { formButton } from '../menu/menu.js';
import {
  lastPageInstead,
  PagingArgsSchema,
  pageWhere,
  pagingButtons,
  pagingFlags,
  pastLastPage,
  readPagingState,
} from '../shared/paging.js';

/** Each zone is a row of the table and up to four options of the menu: 20 stay within its 100. */
const MAX_PER_PAGE = 20;

const ListArgsSchema = PagingArgsSchema.extend({
  perPage: z
    .number()
    .int({ error: '--per-page must be a whole number' })
    .min(5, { error: `--per-page must be between 5 and ${MAX_PER_PAGE}` })
    .max(MAX_PER_PAGE, { error: `--per-page must be between 5 and ${MAX_PER_PAGE}` })
    .default(10),
  search: z
    .string()
    .min(1)
    .max(255, { error: 'the search text is too long (255 characters at most)' })
    .optional(),
});
type ListArgs = z.infer<typeof ListArgsSchema>;

/** Which Shield zone guards each pull zone: one call, read for the next-step buttons. */
async function shieldZonesByPullZone(ctx: RunContext): Promise<Map<number, number>> {
  const list = await ctx.services.platform.listShieldZones({ perPage: 1000 }).catch((error: unknown) => {
    ctx.logger.warn('Shield zones could not be listed; the list shows no Shield buttons', { error });
    return undefined;
  });
  const map = new Map<number, number>();
  for (const zone of list?.data ?? [])
    if (zone.pullZoneId != null && zone.shieldZoneId !== undefined)
      map.set(zone.pullZoneId, zone.shieldZoneId);
  return map;
}

function shieldButtons(shieldZoneId: number): ReplyButton[] {
  return [
    commandButton('Export events', `shield export ${shieldZoneId}`),
    commandButton('Bot detection', `shield bot-detection ${shieldZoneId}`),
  ];
}

const pullZoneName = (zone: PullZoneSummary) =>
  zone.Name || (zone.Id !== undefined ? `pull zone ${zone.Id}` : 'a pull zone without name or id');

/** One row a zone: ids and hostnames as they are, for copying. */
function pullZoneTable(zones: readonly PullZoneSummary[], shields: Map<number, number>): ReplyTable {
  return {
    columns: [
      { header: 'Name', kind: 'text' },
      { header: 'Id', kind: 'text' },
      { header: 'State', kind: 'text' },
      { header: 'Hostnames', kind: 'text' },
      { header: 'Origin', kind: 'text' },
      { header: 'Shield zone', kind: 'text' },
    ],
    rows: zones.map((zone) => {
      const shield = zone.Id === undefined ? undefined : shields.get(zone.Id);
      return [
        pullZoneName(zone),
        zone.Id === undefined ? 'not given' : String(zone.Id),
        zone.Suspended ? 'suspended' : zone.Enabled === false ? 'disabled' : 'enabled',
        zone.Hostnames.length > 0 ? zone.Hostnames.join(', ') : 'no hostnames',
        zone.OriginUrl || '—',
        shield === undefined ? '—' : String(shield),
      ];
    }),
  };
}

/** A menu group's label: a long name is cut, never the id after it, which tells two zones apart. */
const namedGroup = (name: string, id: string) =>
  `${truncate(name, MESSAGE_BUDGET.optionTextChars - id.length)}${id}`;

/** A table has no buttons: each zone's next steps are a group of the menu below it, named after the zone. */
function pullZoneSteps(zone: PullZoneSummary, shieldZoneId: number | undefined): ReplyMenuGroup[] {
  if (zone.Id === undefined) return [];
  return [
    {
      label: namedGroup(pullZoneName(zone), ` (${zone.Id})`),
      options: [
        commandButton('Logs today', `logs ${zone.Id} today`),
        ...(shieldZoneId === undefined ? [] : shieldButtons(shieldZoneId)),
        // A change: its form opens, for the reason, rather than a request filed at once.
        formButton('Reset key…', `pullzone reset-key ${zone.Id}`),
      ],
    },
  ];
}

async function pullZonePage(ctx: RunContext, args: ListArgs, asked?: number): Promise<Reply> {
  const [list, shields] = await Promise.all([
    ctx.services.platform.listPullZones({ page: args.page, perPage: args.perPage, search: args.search }),
    shieldZonesByPullZone(ctx),
  ]);
  const total = list.TotalItems;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / args.perPage));
  const last = lastPageInstead(args.page, total, args.perPage);
  if (last !== undefined) return pullZonePage(ctx, { ...args, page: last }, args.page);
  const hasMore = list.HasMoreItems ?? list.Items.length === args.perPage;
  const searched = args.search ? md` matching "${args.search}"` : trusted('');
  const blocks: ReplyBlock[] = [
    { type: 'header', text: total === undefined ? 'Pull zones' : `Pull zones (${total})` },
    ...(list.Items.length > 0
      ? [
          { type: 'table' as const, table: pullZoneTable(list.Items, shields) },
          {
            type: 'menu' as const,
            placeholder: 'Next step for a zone…',
            groups: list.Items.flatMap((zone) =>
              pullZoneSteps(zone, zone.Id === undefined ? undefined : shields.get(zone.Id)),
            ),
          },
        ]
      : [{ type: 'text' as const, text: md`_No pull zones${nest(searched)}._` }]),
    {
      type: 'context',
      text: md`${pageWhere(args.page, pages)}${nest(searched)}.${pastLastPage(asked, args.page)} The menu runs the command for you, as if you had typed it; Reset key opens its form first, for the reason.`,
    },
    { type: 'actions', closing: true, buttons: pagingButtons('pullzones:page', args, hasMore) },
  ];
  return ephemeral(total === undefined ? 'Pull zones' : `${counted(total, 'pull zone')}`, blocks);
}

/** `/edge pullzones [SEARCH] [--page N] [--per-page N]`: pull zones, with next-step buttons. */
export const pullZones = defineOperation({
  id: 'pullzone.list',
  words: ['pullzones'],
  usage: '/edge pullzones [SEARCH] [--page N] [--per-page N]',
  summary:
    'find a pull zone id: every pull zone with its hostnames, and buttons for logs, export and key reset',
  example: '/edge pullzones www',
  flags: pagingFlags,
  parse: (positionals, flags) =>
    positionals.length > 1
      ? { ok: false, error: 'give at most one search text (quote it if it has spaces)' }
      : parseWith(ListArgsSchema, { search: positionals[0], page: flags.page, perPage: flags['per-page'] }),
  target: (args) => args.search,
  run: (ctx, args) => pullZonePage(ctx, args),
  actions: {
    async page(ctx, value) {
      const args = readPagingState(ListArgsSchema, value);
      if (!args) throw new UserFacingError('That page button is out of date; run /edge pullzones again.');
      return { ...(await pullZonePage(ctx, args)), replaceOriginal: true };
    },
  },
});

const planName = (zone: ShieldZoneSummary) =>
  zone.planType == null ? 'not given' : (SHIELD_PLAN_NAMES[zone.planType] ?? `plan ${zone.planType}`);

const onOff = (value: boolean | null | undefined) => (value == null ? '—' : value ? 'on' : 'off');

/** One row a Shield zone: its id, the pull zone it guards, its plan, WAF and learning mode. */
function shieldZoneTable(
  zones: readonly ShieldZoneSummary[],
  pullZoneNames: Map<number, string>,
): ReplyTable {
  return {
    columns: [
      { header: 'Shield zone', kind: 'text' },
      { header: 'Pull zone', kind: 'text' },
      { header: 'Pull zone name', kind: 'text' },
      { header: 'Plan', kind: 'text' },
      { header: 'WAF', kind: 'text' },
      { header: 'Learning mode', kind: 'text' },
    ],
    rows: zones.map((zone) => [
      zone.shieldZoneId === undefined ? 'not given' : String(zone.shieldZoneId),
      zone.pullZoneId == null ? 'none' : String(zone.pullZoneId),
      (zone.pullZoneId == null ? undefined : pullZoneNames.get(zone.pullZoneId)) ?? '—',
      planName(zone),
      onOff(zone.wafEnabled),
      onOff(zone.learningMode),
    ]),
  };
}

/** A Shield zone's next steps, a group of the menu below the table named after the zone. */
function shieldZoneSteps(zone: ShieldZoneSummary): ReplyMenuGroup[] {
  if (zone.shieldZoneId === undefined) return [];
  return [
    {
      label: `Shield zone ${zone.shieldZoneId}${zone.pullZoneId == null ? '' : ` (pull zone ${zone.pullZoneId})`}`,
      options: [
        ...shieldButtons(zone.shieldZoneId),
        ...(zone.pullZoneId == null ? [] : [commandButton('Logs today', `logs ${zone.pullZoneId} today`)]),
      ],
    },
  ];
}

const ShieldArgsSchema = z.object({
  page: z
    .number()
    .int({ error: '--page must be a whole number' })
    .min(1, { error: '--page starts at 1' })
    .default(1),
});
type ShieldArgs = z.infer<typeof ShieldArgsSchema>;

async function shieldZonePage(ctx: RunContext, args: ShieldArgs, asked?: number): Promise<Reply> {
  const [list, pulls] = await Promise.all([
    ctx.services.platform.listShieldZones({ page: args.page, perPage: MAX_PER_PAGE }),
    ctx.services.platform.listPullZones({ perPage: 1000 }).catch(() => undefined),
  ]);
  const names = new Map<number, string>();
  for (const zone of pulls?.Items ?? [])
    if (zone.Id !== undefined && zone.Name) names.set(zone.Id, zone.Name);
  const total = list.page?.totalCount ?? undefined;
  const pages = total == null ? undefined : Math.max(1, Math.ceil(total / MAX_PER_PAGE));
  const last = lastPageInstead(args.page, total, MAX_PER_PAGE);
  if (last !== undefined) return shieldZonePage(ctx, { page: last }, args.page);
  const hasMore = pages === undefined ? list.data.length === MAX_PER_PAGE : args.page < pages;
  return ephemeral(total == null ? 'Shield zones' : counted(total, 'Shield zone'), [
    { type: 'header', text: total == null ? 'Shield zones' : `Shield zones (${total})` },
    ...(list.data.length > 0
      ? [
          { type: 'table' as const, table: shieldZoneTable(list.data, names) },
          {
            type: 'menu' as const,
            placeholder: 'Next step for a zone…',
            groups: list.data.flatMap(shieldZoneSteps),
          },
        ]
      : [{ type: 'text' as const, text: trusted('_No Shield zones._') }]),
    {
      type: 'context',
      text: md`${pageWhere(args.page, pages)}.${pastLastPage(asked, args.page)} The menu runs the command for you, as if you had typed it.`,
    },
    { type: 'actions', closing: true, buttons: pagingButtons('shield.zones:page', args, hasMore) },
  ]);
}

/** `/edge shield zones [--page N]`: Shield zones with the pull zone each guards. */
export const shieldZones = defineOperation({
  id: 'shieldzone.list',
  words: ['shield', 'zones'],
  usage: '/edge shield zones [--page N]',
  summary:
    'find a Shield zone id: every Shield zone with its pull zone and plan, and buttons for export and bot detection',
  example: '/edge shield zones',
  flags: { page: { kind: 'number' } },
  parse: (positionals, flags) =>
    positionals.length > 0
      ? { ok: false, error: `unexpected argument "${positionals[0]!.slice(0, 40)}"` }
      : parseWith(ShieldArgsSchema, { page: flags.page }),
  run: (ctx, args) => shieldZonePage(ctx, args),
  actions: {
    async page(ctx, value) {
      const args = readPagingState(ShieldArgsSchema, value);
      if (!args) throw new UserFacingError('That page button is out of date; run /edge shield zones again.');
      return { ...(await shieldZonePage(ctx, args)), replaceOriginal: true };
    },
  },
});
