/**
 * The Shield export's summary as reply blocks, shown beside the CSV: what is blocked, from where,
 * by which rule, and when. Dimensions the export has no column for are named, not shown empty.
 */
import { labelledBars } from '../../reply/bars.js';
import { inlineCode } from '../../reply/escape.js';
import { joinMarkup, type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import { inChannel, type Reply, type ReplyBlock, type ReplyTable } from '../../reply/model.js';
import type { Breakdown, ShieldColumn, ShieldSummary, ShieldTimeline } from '../../reports/shield/summary.js';
import { formatAgo } from '../shared/time-args.js';

/** Values per dimension shown in the message; the CSV has every event. */
const SHOWN = 10;
const BAR_WIDTH = 24;

const count = (value: number) => value.toLocaleString('en-US');
/** An empty cell is counted too; it reads as this. */
const shownValue = (value: string) => (value === '' ? '(empty)' : value);
/**
 * A value from the export, as the platform (or whoever sent the request) wrote it: inline code on
 * one line, so it can neither format the message, forge a line of it, nor become a link.
 */
const platformValue = (value: string): Markup => trusted(inlineCode(shownValue(value)));

const COLUMN_WORDS: Record<ShieldColumn, string> = {
  timestamp: 'time',
  action: 'action',
  ruleId: 'rule id',
  ruleName: 'rule name',
  country: 'country',
  asn: 'ASN',
  ip: 'IP',
};

function breakdownText(breakdown: Breakdown): Markup {
  const { values, other } = breakdown;
  const rest = values.length - SHOWN;
  const parts = values
    .slice(0, SHOWN)
    .map((item) => md`${nest(platformValue(item.value))} ×${count(item.count)}`);
  if (rest > 0) parts.push(md`+${rest} more`);
  if (other > 0) parts.push(md`${count(other)} more events past the ${values.length} values counted`);
  return (parts.join(' · ') || '—') as Markup;
}

/** The rule's id as code, then its name. */
function ruleWords(rule: { id: string; name: string }): Markup {
  const parts: Markup[] = [];
  if (rule.id) parts.push(trusted(inlineCode(rule.id)));
  if (rule.name) parts.push(platformValue(rule.name));
  return parts.length > 0 ? joinMarkup(parts, ' ') : trusted('(empty)');
}

const utc = (ms: number) => new Date(ms).toISOString();

/** `14:05` when every bucket is on one UTC day, `11-21 14:05` when they span days. */
function bucketLabels(timeline: ShieldTimeline): string[] {
  const starts = timeline.counts.map((_, i) => timeline.startMs + i * timeline.bucketMs);
  const oneDay = starts.length > 0 && utc(starts[0]!).slice(0, 10) === utc(starts.at(-1)!).slice(0, 10);
  return starts.map((ms) =>
    oneDay ? utc(ms).slice(11, 16) : `${utc(ms).slice(5, 10)} ${utc(ms).slice(11, 16)}`,
  );
}

/** `minute`, `5 minutes`, `hour`, `3 hours`, `2 days`. */
export function bucketWords(bucketMs: number): string {
  const minutes = bucketMs / 60_000;
  if (minutes % 1_440 === 0) return minutes === 1_440 ? 'day' : `${minutes / 1_440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? 'hour' : `${minutes / 60} hours`;
  return minutes === 1 ? 'minute' : `${minutes} minutes`;
}

/** First and last event in UTC: seconds, and the date when they are on different days. */
function span(timeline: ShieldTimeline): string {
  if (timeline.firstMs === null || timeline.lastMs === null) return '—';
  const first = utc(timeline.firstMs);
  const last = utc(timeline.lastMs);
  const sameDay = first.slice(0, 10) === last.slice(0, 10);
  const at = (iso: string) => (sameDay ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`);
  return `${at(first)} – ${at(last)} UTC`;
}

/** The rules that matched most: their id and name as the export wrote them, and the events. */
function ruleTable(rules: NonNullable<ShieldSummary['byRule']>['rules']): ReplyTable {
  return {
    columns: [
      { header: 'Rule id', kind: 'text' },
      { header: 'Rule name', kind: 'text' },
      { header: 'Events', kind: 'number' },
    ],
    rows: rules.slice(0, SHOWN).map((rule) => [rule.id, rule.name, rule.count]),
  };
}

/** The IPs seen most; a count that may be overstated says so. */
function ipTable(ips: NonNullable<ShieldSummary['topIps']>['ips']): ReplyTable {
  const estimated = ips.some((ip) => ip.overcount > 0);
  return {
    columns: [
      { header: 'IP', kind: 'text' },
      { header: 'Events', kind: 'number' },
      ...(estimated ? [{ header: 'Count is', kind: 'text' } as const] : []),
    ],
    rows: ips.map((ip) => [
      shownValue(ip.ip),
      ip.count,
      ...(estimated ? [ip.overcount > 0 ? 'an upper bound' : 'exact'] : []),
    ]),
  };
}

/** The summary beside the CSV: the counts at a glance and, its one table, the rules that matched. */
export function renderShieldSummary(summary: ShieldSummary): ReplyBlock[] {
  const fields: { label: string; value: Markup }[] = [
    { label: 'Events', value: md`${count(summary.events)}` },
  ];
  if (summary.timeline) fields.push({ label: 'First – last event', value: md`${span(summary.timeline)}` });
  if (summary.byAction) fields.push({ label: 'By action', value: breakdownText(summary.byAction) });
  if (summary.byCountry) fields.push({ label: 'By country', value: breakdownText(summary.byCountry) });
  if (summary.byAsn) fields.push({ label: 'By ASN', value: breakdownText(summary.byAsn) });
  const blocks: ReplyBlock[] = [{ type: 'fields', fields }];

  if (summary.byRule && summary.byRule.rules.length > 0) {
    const { rules, other } = summary.byRule;
    blocks.push({ type: 'text', text: trusted('*By rule*') });
    blocks.push({ type: 'table', table: ruleTable(rules) });
    const more: Markup[] = [];
    if (rules.length > SHOWN) more.push(md`+${rules.length - SHOWN} more rules.`);
    if (other > 0) more.push(md`${count(other)} more events past the ${rules.length} rules counted.`);
    if (more.length > 0) blocks.push({ type: 'context', text: joinMarkup(more, ' ') });
  }

  const timeline = summary.timeline;
  if (timeline && timeline.counts.length > 0) {
    const labels = bucketLabels(timeline);
    blocks.push({ type: 'text', text: md`*Events per ${bucketWords(timeline.bucketMs)} (UTC)*` });
    blocks.push({
      type: 'code',
      text: labelledBars(
        timeline.counts.map((events, i) => ({ label: labels[i]!, count: events })),
        BAR_WIDTH,
      ).join('\n'),
    });
  }

  const notes: Markup[] = [];
  const missing = (Object.keys(COLUMN_WORDS) as ShieldColumn[]).filter(
    (column) => summary.columns[column] === undefined,
  );
  if (summary.events > 0 && missing.length > 0)
    notes.push(
      md`The export has no ${missing.map((column) => COLUMN_WORDS[column]).join(', ')} column${missing.length > 1 ? 's' : ''}: ${missing.length > 1 ? 'those counts are' : 'that count is'} left out.`,
    );
  if (timeline && timeline.untimed > 0)
    notes.push(
      md`:warning: ${count(timeline.untimed)} event${timeline.untimed === 1 ? ' has' : 's have'} no readable time: in the counts, not in the chart.`,
    );
  if (notes.length > 0) blocks.push({ type: 'context', text: joinMarkup(notes) });
  return blocks;
}

/**
 * The breakdowns after the summary, a message each in its thread (a message holds one table):
 * the IPs seen most.
 */
export function shieldFurtherBreakdowns(summary: ShieldSummary, where: string): Reply[] {
  const ips = summary.topIps?.ips.slice(0, SHOWN) ?? [];
  if (ips.length === 0) return [];
  const table = ipTable(ips);
  const blocks: ReplyBlock[] = [
    { type: 'text', text: trusted('*Top IPs*') },
    { type: 'table', table },
  ];
  if (table.columns.some((column) => column.header === 'Count is'))
    blocks.push({
      type: 'context',
      text: md`An upper bound: with this many distinct IPs the count of the rarest ones is estimated.`,
    });
  return [inChannel(`Top IPs of ${where}`, blocks)];
}

/**
 * The fields of the export's headline in the channel: the rate, the top action and rule, last
 * seen and who asked. An export reads only the window asked for, so it has no earlier window to
 * compare with, and says so rather than guess.
 */
export function shieldHeadlineFields(
  summary: ShieldSummary,
  input: { nowMs: number; requester: string },
): { label: string; value: Markup }[] {
  const action = summary.byAction?.values[0];
  const rule = summary.byRule?.rules[0];
  const lastMs = summary.timeline?.lastMs ?? null;
  return [
    { label: 'Rate now', value: md`not compared: an export reads only its own window` },
    {
      label: 'Last seen',
      value:
        lastMs === null
          ? md`—`
          : md`${formatAgo(lastMs, input.nowMs)} (${utc(lastMs).slice(0, 19).replace('T', ' ')} UTC)`,
    },
    {
      label: 'Top action',
      value: action
        ? md`${nest(platformValue(action.value))} ×${count(action.count)}`
        : md`${summary.byAction ? '—' : 'no action column'}`,
    },
    {
      label: 'Top rule',
      value: rule
        ? md`${nest(ruleWords(rule))} ×${count(rule.count)}`
        : md`${summary.byRule ? '—' : 'no rule column'}`,
    },
    { label: 'Asked by', value: mention(input.requester) },
  ];
}
