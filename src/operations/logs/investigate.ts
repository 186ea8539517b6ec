/**
 * "Investigate with edgeops" on an alert: a form pre-filled with what the alert names (see
 * alert-hints.ts) that asks what to run, on which zone and for which window. Its submission is
 * a command line, run as if typed: the same parsing, policy, audit and answer as `/edge`.
 */

import {
  fieldText,
  type ModalSpec,
  type ModalValues,
  readZoneChoice,
  ZONE_KIND_WORDS,
  type ZoneKind,
  zoneField,
} from '../../reply/form.js';
import type { CommandForm } from '../engine/types.js';
import { type AlertHints, suggestedWindow } from './alert-hints.js';

/** The message shortcut's callback id (manifest.yml) and the form's. */
export const INVESTIGATE_SHORTCUT = 'investigate';
export const INVESTIGATE_FORM = 'investigate:run';

type Investigation = 'logs' | 'stats' | 'shield';

const LABELS: Record<Investigation, string> = {
  logs: 'Origin error logs of a pull zone',
  stats: 'Edge numbers of a pull zone (requests, cache, 4xx/5xx)',
  shield: 'Shield event export of a Shield zone',
};

/** The kind of zone each investigation runs on. */
const ZONE_OF: Record<Investigation, ZoneKind> = {
  logs: 'pullzone',
  stats: 'pullzone',
  shield: 'shieldzone',
};

const listed = (ids: number[]) => ids.join(', ');

function foundWords(hints: AlertHints): string {
  const parts = [
    hints.pullZoneIds.length > 0 ? `pull zone ${listed(hints.pullZoneIds)}` : '',
    hints.shieldZoneIds.length > 0 ? `Shield zone ${listed(hints.shieldZoneIds)}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `Found in the message: ${parts.join('; ')}.` : 'The message names no zone id.';
}

/** The form, pre-filled from the alert: the first zone id found, and a window around its times. */
export function investigateForm(hints: AlertHints, now: number): ModalSpec {
  const what: Investigation =
    hints.pullZoneIds.length === 0 && hints.shieldZoneIds.length > 0 ? 'shield' : 'logs';
  const zone = (what === 'logs' ? hints.pullZoneIds : hints.shieldZoneIds)[0];
  const window = suggestedWindow(hints, now);
  const timesSaid =
    hints.times.length > 0
      ? `The window is half an hour either side of the ${hints.times.length === 1 ? 'time' : 'times'} in the message.`
      : 'The message names no time: the window is the last hour.';
  return {
    callbackId: INVESTIGATE_FORM,
    title: 'Investigate',
    submit: 'Run',
    privateMetadata: '',
    intro: `${foundWords(hints)} ${timesSaid} Times are in UTC; the answer goes in the message’s thread.`,
    fields: [
      {
        id: 'what',
        label: 'What to run',
        kind: 'select',
        options: (Object.keys(LABELS) as Investigation[]).map((value) => ({ value, label: LABELS[value] })),
        initial: what,
      },
      zoneField({
        id: 'zone',
        label: 'Pull zone or Shield zone',
        zones: 'any',
        ...(zone !== undefined ? { initial: { kind: ZONE_OF[what], id: zone } } : {}),
        hint: 'A pull zone for origin error logs or edge numbers, a Shield zone for the Shield export: type part of its name or id.',
      }),
      { id: 'from', label: 'From', kind: 'datetime', initial: window.from },
      { id: 'to', label: 'To', kind: 'datetime', initial: window.to },
    ],
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The command line the form stands for, or what to correct on which field. */
function readInvestigation(values: ModalValues): { errors: Record<string, string> } | { command: string } {
  const what = fieldText(values, 'what');
  if (what !== 'logs' && what !== 'stats' && what !== 'shield')
    return { errors: { what: 'Pick what to run.' } };
  const wanted = ZONE_OF[what];
  // The picker says which kind was chosen (shieldzone:5101); a bare id is of the kind asked for.
  const zone = readZoneChoice(fieldText(values, 'zone'));
  if (!zone)
    return {
      errors: {
        zone: `Type the ${ZONE_KIND_WORDS[wanted]} id as a number, e.g. ${what === 'shield' ? '5101' : '308006'}.`,
      },
    };
  if (zone.kind && zone.kind !== wanted)
    return {
      errors: {
        zone:
          what === 'shield'
            ? `Pull zone ${zone.id} has no Shield event export: pick a Shield zone, or run the origin error logs.`
            : `Shield zone ${zone.id} has no ${what === 'logs' ? 'origin error logs' : 'edge numbers'}: pick a pull zone, or run the Shield event export.`,
      },
    };
  const from = Number(fieldText(values, 'from'));
  const to = Number(fieldText(values, 'to'));
  if (!Number.isFinite(from) || from <= 0) return { errors: { from: 'Pick the start of the window.' } };
  if (!Number.isFinite(to) || to <= 0) return { errors: { to: 'Pick the end of the window.' } };
  const words = what === 'shield' ? `shield export ${zone.id}` : `${what} ${zone.id}`;
  return { command: `${words} --from ${iso(from)} --to ${iso(to)}` };
}

/** The command's own complaint goes on the field it is about. */
function fieldOf(error: string): string {
  if (/zone id/i.test(error)) return 'zone';
  if (/--to\b(?! must be after)|\bend\b/i.test(error)) return 'to';
  return 'from';
}

export const investigateCommandForm: CommandForm = {
  callbackId: INVESTIGATE_FORM,
  read: readInvestigation,
  fieldOf,
  // Origin logs, edge numbers and the Shield export only read.
  changes: false,
};
