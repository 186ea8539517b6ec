/**
 * The "Purge URLs" form: opened by `/edge purge` alone, or by the Purge… button of an origin-log
 * summary with the window's top URLs in it. The logs carry paths, so the button's form makes them
 * whole with one of the zone's hostnames (its first custom one, else its system one) and offers
 * the others: the URLs on that hostname, and any path typed, are purged on the one picked.
 */
import { z } from 'zod';
import type { PullZoneDetail } from '../../platform/schemas.js';
import { MESSAGE_BUDGET } from '../../reply/budget.js';
import { fieldText, type ModalField, type ModalSpec, type ModalValues } from '../../reply/form.js';
import type { ReplyButton } from '../../reply/model.js';
import { MAX_PURGE_URLS, PURGE_URL_EXAMPLE, readPurgeUrls } from './targets.js';

export const PURGE_FORM_ID = 'purge:urls';
export const PURGE_FORM_BUTTON = 'purge:form';

/** What the Purge… button carries: the pull zone and the paths of its top URLs. */
export const PurgeButtonValueSchema = z.object({
  z: z.number().int().positive(),
  p: z.array(z.string().max(2_000)).max(MAX_PURGE_URLS),
});

/** What the form carries through Slack: the zone and the hostname its URLs were made whole with. */
const PurgeFormMetadataSchema = z.object({ z: z.number().int().positive(), h: z.string().min(1) });

/** A log's URL as a path with its query (`/a?b=1`); undefined for what is neither a path nor a URL. */
export function pathOf(logged: string): string | undefined {
  if (logged.startsWith('/')) return logged;
  if (!URL.canParse(logged)) return undefined;
  const url = new URL(logged);
  return `${url.pathname}${url.search}`;
}

/**
 * The Purge… button under a summary's top URLs: its value holds their paths (as many as fit a
 * button's value), not anything that runs; the form it opens shows them whole before anything is purged.
 */
export function purgeFormButton(pullZoneId: number, loggedUrls: readonly string[]): ReplyButton | undefined {
  const paths: string[] = [];
  for (const logged of loggedUrls) {
    const path = pathOf(logged);
    if (path === undefined || paths.includes(path) || paths.length === MAX_PURGE_URLS) continue;
    if (JSON.stringify({ z: pullZoneId, p: [...paths, path] }).length > MESSAGE_BUDGET.buttonValueChars)
      break;
    paths.push(path);
  }
  if (paths.length === 0) return undefined;
  return { text: 'Purge…', actionId: PURGE_FORM_BUTTON, value: JSON.stringify({ z: pullZoneId, p: paths }) };
}

/** The hostname URLs are made whole with: the zone's first custom one, else its first system one. */
export const defaultHostname = (zone: PullZoneDetail): string | undefined =>
  (zone.hostnames.find((hostname) => !hostname.system) ?? zone.hostnames[0])?.value;

const urlsHint = (withHost: boolean) =>
  withHost
    ? `One URL per line, at most ${MAX_PURGE_URLS}: whole, or a path (/assets/app.js) purged on the hostname above`
    : `One whole URL per line, at most ${MAX_PURGE_URLS}`;

/** The form, empty, or with a zone's paths made whole on its default hostname. */
export function purgeForm(from?: { zone: PullZoneDetail; paths: readonly string[] }): ModalSpec {
  const host = from ? defaultHostname(from.zone) : undefined;
  const fields: ModalField[] = [];
  if (from && host)
    fields.push({
      id: 'host',
      label: 'Hostname',
      kind: 'select',
      options: from.zone.hostnames.map((hostname) => ({
        value: hostname.value,
        label: hostname.system ? `${hostname.value} (system)` : hostname.value,
      })),
      initial: host,
      hint: `The URLs on ${host}, and any path, are purged on the hostname picked: the cache keeps each hostname apart.`,
    });
  fields.push({
    id: 'urls',
    label: 'URLs',
    kind: 'text',
    multiline: true,
    ...(from && host ? { initial: from.paths.map((path) => `https://${host}${path}`).join('\n') } : {}),
    hint: urlsHint(host !== undefined),
    examples: [PURGE_URL_EXAMPLE],
  });
  return {
    callbackId: PURGE_FORM_ID,
    title: 'Purge URLs',
    submit: 'Purge',
    privateMetadata: from && host ? JSON.stringify({ z: from.zone.id, h: host }) : '',
    intro: `Each URL is purged from the edge cache as it is, not what is below it${from ? `, for pull zone ${from.zone.id} (${from.zone.name})` : ''}. A URL with * or ending in / purges more, and needs what /edge purge zone needs.`,
    fields,
  };
}

/** The form's URLs, whole: paths on the hostname picked, and the URLs it was opened with moved there. */
export function readPurgeForm(
  values: ModalValues,
  privateMetadata: string,
): { urls: string[] } | { errors: Record<string, string> } {
  const opened = privateMetadata
    ? PurgeFormMetadataSchema.safeParse(safeJson(privateMetadata)).data
    : undefined;
  const picked = fieldText(values, 'host') || opened?.h;
  const lines = fieldText(values, 'urls')
    .split(/\s+/)
    .filter((line) => line !== '');
  if (lines.length === 0) return { errors: { urls: `Give at least one URL, e.g. ${PURGE_URL_EXAMPLE}` } };
  const whole = lines.map((line) => {
    if (line.startsWith('/') && picked) return `https://${picked}${line}`;
    if (!opened || !picked || picked === opened.h || !URL.canParse(line)) return line;
    const url = new URL(line);
    if (url.hostname !== opened.h.toLowerCase()) return line;
    url.hostname = picked;
    return url.href;
  });
  const read = readPurgeUrls(whole);
  return read.ok ? { urls: read.urls } : { errors: { urls: `${read.error}.` } };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
