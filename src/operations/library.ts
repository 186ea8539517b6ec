import { z } from 'zod';
import { PlatformError } from '../platform/errors.js';
import {
  EncodingTier,
  OUTPUT_CODECS,
  type OutputCodec,
  RESOLUTIONS,
  type Resolution,
  type VideoLibrary,
  type VideoLibraryCreate,
} from '../platform/schemas.js';
import { MESSAGE_BUDGET } from '../reply/budget.js';
import type { ModalField, ModalSpec, ModalValues } from '../reply/form.js';
import { hiddenCharacterError } from '../reply/hidden-characters.js';
import { type Markup, md, mention, nest, trusted } from '../reply/markup.js';
import { ephemeral, inChannel, type Reply, type ReplyBlock } from '../reply/model.js';
import { fingerprint } from '../secrets/registry.js';
import { OperationFailedError, UserFacingError } from './engine/errors.js';
import { defineOperation, parseWith, type RunContext } from './engine/types.js';
import { deliverSecret, type SecretDelivery, secretContext } from './shared/secret-delivery.js';

// ---------------------------------------------------------------- choices offered in the form

/**
 * Replication regions. The spec types ReplicationRegions as strings and leaves the allowed
 * values "not shown"; these are the platform's storage region codes.
 */
export const STORAGE_REGIONS = [
  { value: 'DE', label: 'DE · Falkenstein' },
  { value: 'UK', label: 'UK · London' },
  { value: 'SE', label: 'SE · Stockholm' },
  { value: 'CZ', label: 'CZ · Prague' },
  { value: 'ES', label: 'ES · Madrid' },
  { value: 'NY', label: 'NY · New York' },
  { value: 'LA', label: 'LA · Los Angeles' },
  { value: 'WA', label: 'WA · Seattle' },
  { value: 'MI', label: 'MI · Miami' },
  { value: 'SG', label: 'SG · Singapore' },
  { value: 'SYD', label: 'SYD · Sydney' },
  { value: 'HK', label: 'HK · Hong Kong' },
  { value: 'JP', label: 'JP · Tokyo' },
  { value: 'BR', label: 'BR · São Paulo' },
  { value: 'JH', label: 'JH · Johannesburg' },
] as const;

/** Caption languages as ISO 639-1 codes; the spec leaves the allowed values "not shown". */
export const CAPTION_LANGUAGES = [
  { value: 'en', label: 'English' },
  { value: 'es', label: 'Spanish' },
  { value: 'fr', label: 'French' },
  { value: 'de', label: 'German' },
  { value: 'it', label: 'Italian' },
  { value: 'pt', label: 'Portuguese' },
  { value: 'nl', label: 'Dutch' },
  { value: 'pl', label: 'Polish' },
  { value: 'sv', label: 'Swedish' },
  { value: 'da', label: 'Danish' },
  { value: 'no', label: 'Norwegian' },
  { value: 'fi', label: 'Finnish' },
  { value: 'cs', label: 'Czech' },
  { value: 'sk', label: 'Slovak' },
  { value: 'sl', label: 'Slovenian' },
  { value: 'hr', label: 'Croatian' },
  { value: 'hu', label: 'Hungarian' },
  { value: 'ro', label: 'Romanian' },
  { value: 'bg', label: 'Bulgarian' },
  { value: 'el', label: 'Greek' },
  { value: 'tr', label: 'Turkish' },
  { value: 'ru', label: 'Russian' },
  { value: 'uk', label: 'Ukrainian' },
  { value: 'ar', label: 'Arabic' },
  { value: 'he', label: 'Hebrew' },
  { value: 'hi', label: 'Hindi' },
  { value: 'bn', label: 'Bengali' },
  { value: 'id', label: 'Indonesian' },
  { value: 'ms', label: 'Malay' },
  { value: 'th', label: 'Thai' },
  { value: 'vi', label: 'Vietnamese' },
  { value: 'ja', label: 'Japanese' },
  { value: 'ko', label: 'Korean' },
  { value: 'zh', label: 'Chinese' },
] as const;

/** Playback switches, one checkbox each, and the field of VideoLibraryCreateModel it sets. */
const PLAYBACK = [
  { value: 'block-no-referrer', label: 'Block requests without a referrer', field: 'BlockNoneReferrer' },
  { value: 'mp4-fallback', label: 'MP4 fallback', field: 'EnableMP4Fallback' },
  { value: 'keep-originals', label: 'Keep original files', field: 'KeepOriginalFiles' },
  { value: 'direct-play', label: 'Direct play URLs', field: 'AllowDirectPlay' },
  { value: 'multi-audio', label: 'Multiple audio tracks', field: 'EnableMultiAudioTrackSupport' },
  { value: 'early-play', label: 'Early play (also exposes originals)', field: 'AllowEarlyPlay' },
] as const;

/** Smart generation features; any of them needs transcripts, so it turns transcribing on. */
const SMART = [
  { value: 'titles', label: 'Titles', field: 'EnableTranscribingTitleGeneration' },
  { value: 'descriptions', label: 'Descriptions', field: 'EnableTranscribingDescriptionGeneration' },
  { value: 'chapters', label: 'Chapters', field: 'EnableTranscribingChaptersGeneration' },
  { value: 'moments', label: 'Moments', field: 'EnableTranscribingMomentsGeneration' },
] as const;

/** The option values as the non-empty tuple z.enum wants; every list above is a non-empty constant. */
const values = <T extends readonly { value: string }[]>(list: T) =>
  list.map((item) => item.value) as [T[number]['value'], ...T[number]['value'][]];

// ---------------------------------------------------------------- the form's values

/** What the form holds, also carried by the "Edit and resubmit" button (no secrets in it). */
const LibraryFormSchema = z.object({
  name: z.string(),
  regions: z.array(z.enum(values(STORAGE_REGIONS))),
  playerVersion: z.number().int().nullable(),
  tier: z.enum(['free', 'premium']),
  jit: z.boolean(),
  codecs: z.array(z.enum(OUTPUT_CODECS)),
  resolutions: z.array(z.enum(RESOLUTIONS)),
  playback: z.array(z.enum(values(PLAYBACK))),
  transcribing: z.boolean(),
  captionLanguages: z.array(z.enum(values(CAPTION_LANGUAGES))),
  smart: z.array(z.enum(values(SMART))),
});
export type LibraryForm = z.infer<typeof LibraryFormSchema>;

/** Defaults: the platform's own (x264, keep originals, direct play) and the two common resolutions. */
export const DEFAULT_LIBRARY_FORM: LibraryForm = {
  name: '',
  regions: [],
  playerVersion: null,
  tier: 'free',
  jit: false,
  codecs: ['x264'],
  resolutions: ['720p', '1080p'],
  playback: ['keep-originals', 'direct-play'],
  transcribing: false,
  captionLanguages: [],
  smart: [],
};

/** Form field ids: block and action ids of the modal, and the keys of its errors. */
export const LIBRARY_FIELDS = {
  name: 'name',
  regions: 'regions',
  playerVersion: 'player_version',
  tier: 'tier',
  jit: 'jit',
  codecs: 'codecs',
  resolutions: 'resolutions',
  playback: 'playback',
  transcribing: 'transcribing',
  captionLanguages: 'caption_languages',
  smart: 'smart',
} as const;

const ON = 'on';
const INT32_MAX = 2_147_483_647;
const FORM_CALLBACK = 'library.create:form';

export function libraryModal(form: LibraryForm): ModalSpec {
  const f = LIBRARY_FIELDS;
  const fields: ModalField[] = [
    { id: f.name, label: 'Name', kind: 'text', initial: form.name },
    {
      id: f.regions,
      label: 'Replication regions',
      kind: 'multiselect',
      options: [...STORAGE_REGIONS],
      initial: form.regions,
      optional: true,
      hint: 'Storage regions that keep a copy of every video.',
    },
    {
      id: f.playerVersion,
      label: 'Player version',
      kind: 'number',
      min: 1,
      max: INT32_MAX,
      ...(form.playerVersion !== null ? { initial: form.playerVersion } : {}),
      optional: true,
      hint: 'Leave empty for the platform’s current player.',
    },
    {
      id: f.tier,
      label: 'Encoding tier',
      kind: 'select',
      options: [
        { value: 'free', label: 'Free' },
        { value: 'premium', label: 'Premium (paid: faster encoding, more codecs)' },
      ],
      initial: form.tier,
    },
    {
      id: f.jit,
      label: 'JIT encoding',
      kind: 'checkboxes',
      options: [{ value: ON, label: 'Encode just in time (Premium only)' }],
      initial: form.jit ? [ON] : [],
      optional: true,
    },
    {
      id: f.codecs,
      label: 'Output codecs',
      kind: 'checkboxes',
      options: OUTPUT_CODECS.map((codec) => ({
        value: codec,
        label: codec === 'x264' ? 'x264' : `${codec} (Premium)`,
      })),
      initial: form.codecs,
    },
    {
      id: f.resolutions,
      label: 'Enabled resolutions',
      kind: 'checkboxes',
      options: RESOLUTIONS.map((resolution) => ({ value: resolution, label: resolution })),
      initial: form.resolutions,
    },
    {
      id: f.playback,
      label: 'Playback',
      kind: 'checkboxes',
      options: PLAYBACK.map(({ value, label }) => ({ value, label })),
      initial: form.playback,
      optional: true,
    },
    {
      id: f.transcribing,
      label: 'Transcribing',
      kind: 'checkboxes',
      options: [{ value: ON, label: 'Transcribe audio automatically' }],
      initial: form.transcribing ? [ON] : [],
      optional: true,
    },
    {
      id: f.captionLanguages,
      label: 'Caption languages',
      kind: 'multiselect',
      options: [...CAPTION_LANGUAGES].map(({ value, label }) => ({ value, label: `${label} (${value})` })),
      initial: form.captionLanguages,
      optional: true,
      hint: 'Languages captions are transcribed to.',
    },
    {
      id: f.smart,
      label: 'Smart generation',
      kind: 'checkboxes',
      options: SMART.map(({ value, label }) => ({ value, label })),
      initial: form.smart,
      optional: true,
      hint: 'Any of these turns transcribing on.',
    },
  ];
  return {
    callbackId: FORM_CALLBACK,
    title: 'New video library',
    submit: 'Create library',
    privateMetadata: '',
    intro: 'Only the name is required; the rest starts at the platform’s defaults.',
    fields,
  };
}

const asList = (value: string | string[] | undefined): string[] =>
  Array.isArray(value) ? value : value ? [value] : [];

const asText = (value: string | string[] | undefined): string =>
  typeof value === 'string' ? value : (value?.[0] ?? '');

/** Keeps the known choices (in the form's order) and says whether anything else was sent. */
function pick<T extends string>(sent: string[], allowed: readonly T[]): { chosen: T[]; unknown: boolean } {
  const chosen = allowed.filter((item) => sent.includes(item));
  return { chosen, unknown: sent.some((item) => !(allowed as readonly string[]).includes(item)) };
}

export type FormReading = { ok: true; form: LibraryForm } | { ok: false; errors: Record<string, string> };

/** Reads and checks the submitted form; every field at fault gets its own message. */
export function readLibraryForm(submitted: ModalValues): FormReading {
  const f = LIBRARY_FIELDS;
  const errors: Record<string, string> = {};
  const fromList = 'Choose from the list.';

  const name = asText(submitted[f.name]).trim();
  if (name.length < 1) errors[f.name] = 'Give the library a name (at least 1 character).';
  const hiddenInName = hiddenCharacterError(name, 'The name');
  if (hiddenInName) errors[f.name] = hiddenInName;

  const regions = pick(asList(submitted[f.regions]), values(STORAGE_REGIONS));
  if (regions.unknown) errors[f.regions] = fromList;

  const rawVersion = asText(submitted[f.playerVersion]).trim();
  let playerVersion: number | null = null;
  if (rawVersion !== '') {
    const number = Number(rawVersion);
    if (!/^\d+$/.test(rawVersion) || number < 1 || number > INT32_MAX)
      errors[f.playerVersion] = `The player version is a whole number from 1 to ${INT32_MAX}, or empty.`;
    else playerVersion = number;
  }

  const tierText = asText(submitted[f.tier]);
  const tier = tierText === 'premium' ? 'premium' : 'free';
  if (tierText !== 'free' && tierText !== 'premium') errors[f.tier] = 'Choose Free or Premium.';

  const jit = asList(submitted[f.jit]).includes(ON);
  if (jit && tier !== 'premium') errors[f.jit] = 'JIT encoding needs the Premium encoding tier.';

  const codecs = pick<OutputCodec>(asList(submitted[f.codecs]), OUTPUT_CODECS);
  if (codecs.unknown) errors[f.codecs] = fromList;
  else if (codecs.chosen.length === 0)
    errors[f.codecs] = 'Choose at least one codec (x264 works on every tier).';
  else if (tier !== 'premium' && codecs.chosen.some((codec) => codec !== 'x264'))
    errors[f.codecs] = 'vp9, hevc and av1 need the Premium encoding tier: choose Premium, or keep only x264.';

  const resolutions = pick<Resolution>(asList(submitted[f.resolutions]), RESOLUTIONS);
  if (resolutions.unknown) errors[f.resolutions] = fromList;
  else if (resolutions.chosen.length === 0) errors[f.resolutions] = 'Enable at least one resolution.';

  const playback = pick(asList(submitted[f.playback]), values(PLAYBACK));
  const languages = pick(asList(submitted[f.captionLanguages]), values(CAPTION_LANGUAGES));
  if (languages.unknown) errors[f.captionLanguages] = fromList;
  const smart = pick(asList(submitted[f.smart]), values(SMART));

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    form: {
      name,
      regions: regions.chosen,
      playerVersion,
      tier,
      jit,
      codecs: codecs.chosen,
      resolutions: resolutions.chosen,
      playback: playback.chosen,
      transcribing: asList(submitted[f.transcribing]).includes(ON),
      captionLanguages: languages.chosen,
      smart: smart.chosen,
    },
  };
}

export interface LibraryRequest {
  body: VideoLibraryCreate;
  /** Smart generation was chosen without transcribing, so transcribing was turned on. */
  transcribingTurnedOn: boolean;
}

/** The POST /videolibrary body: every switch the form shows is sent, on or off. */
export function libraryRequest(form: LibraryForm): LibraryRequest {
  const transcribingTurnedOn = form.smart.length > 0 && !form.transcribing;
  const body: VideoLibraryCreate = {
    Name: form.name,
    ...(form.regions.length > 0 ? { ReplicationRegions: form.regions } : {}),
    ...(form.playerVersion !== null ? { PlayerVersion: form.playerVersion } : {}),
    EncodingTier: form.tier === 'premium' ? EncodingTier.Premium : EncodingTier.Free,
    JitEncodingEnabled: form.jit,
    OutputCodecs: form.codecs.join(','),
    EnabledResolutions: form.resolutions.join(','),
    EnableTranscribing: form.transcribing || form.smart.length > 0,
    ...(form.captionLanguages.length > 0 ? { TranscribingCaptionLanguages: form.captionLanguages } : {}),
  };
  for (const toggle of PLAYBACK) body[toggle.field] = form.playback.includes(toggle.value);
  for (const toggle of SMART) body[toggle.field] = form.smart.includes(toggle.value);
  return { body, transcribingTurnedOn };
}

// ---------------------------------------------------------------- the reopen button

/** The form as a button value, within Slack's limit: the name gives way if anything must. */
export function reopenValue(form: LibraryForm): string {
  const rest = JSON.stringify({ ...form, name: '' });
  const room = MESSAGE_BUDGET.buttonValueChars - rest.length;
  let name = form.name.slice(0, Math.max(0, room));
  while (name.length > 0 && JSON.stringify({ ...form, name }).length > MESSAGE_BUDGET.buttonValueChars)
    name = name.slice(0, -1);
  return JSON.stringify({ ...form, name });
}

function readReopenValue(value: string): LibraryForm | undefined {
  try {
    const parsed = LibraryFormSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- replies

const tierName = (tier: number | undefined) =>
  tier === EncodingTier.Premium ? 'Premium' : tier === EncodingTier.Free ? 'Free' : 'unknown';

const listText = (value: string | null | undefined) =>
  value
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
        .join(', ')
    : '—';

function createdReply(
  ctx: RunContext,
  request: LibraryRequest,
  library: VideoLibrary,
  delivery: SecretDelivery,
): Reply {
  const { body } = request;
  const name = library.Name ?? body.Name;
  const regions = library.ReplicationRegions ?? body.ReplicationRegions ?? [];
  const transcribing = library.EnableTranscribing ?? body.EnableTranscribing ?? false;
  const keys = [library.ApiKey, library.ReadOnlyApiKey].filter((key): key is string => !!key);
  const masked = keys.map((key) => fingerprint(key)).join(', ');
  const notes: Markup[] = [
    delivery.delivered
      ? md`The API key and read-only API key (${masked}) were sent to ${nest(mention(ctx.userId))} by direct message, once.`
      : md`${nest(delivery.notice)} Their fingerprints: ${masked}.`,
  ];
  if (request.transcribingTurnedOn)
    notes.push(md`Transcribing was turned on because smart generation needs transcripts.`);
  const blocks: ReplyBlock[] = [
    { type: 'header', text: 'Video library created' },
    {
      type: 'fields',
      fields: [
        { label: 'Name', value: md`${name}` },
        { label: 'Library id', value: md`${library.Id ?? '—'}` },
        { label: 'Pull zone id', value: md`${library.PullZoneId ?? '—'}` },
        { label: 'Storage zone id', value: md`${library.StorageZoneId ?? '—'}` },
        {
          label: 'Encoding tier',
          value: md`${tierName(library.EncodingTier ?? body.EncodingTier ?? undefined)}`,
        },
        {
          label: 'JIT encoding',
          value: md`${(library.JitEncodingEnabled ?? body.JitEncodingEnabled) ? 'on' : 'off'}`,
        },
        {
          label: 'Resolutions',
          value: md`${listText(library.EnabledResolutions ?? body.EnabledResolutions)}`,
        },
        { label: 'Codecs', value: md`${listText(library.OutputCodecs ?? body.OutputCodecs)}` },
        { label: 'Replication regions', value: md`${regions.length > 0 ? regions.join(', ') : '—'}` },
        {
          label: 'Transcribing',
          value: md`${transcribing ? 'on' : 'off'}${nest(
            transcribing && (body.TranscribingCaptionLanguages ?? []).length > 0
              ? md` (${(body.TranscribingCaptionLanguages ?? []).join(', ')})`
              : trusted(''),
          )}`,
        },
      ],
    },
    ...notes.map((text) => ({ type: 'context' as const, text })),
  ];
  return inChannel(`Video library ${name} created (id ${library.Id ?? 'not given'})`, blocks);
}

function rejectedReply(error: PlatformError, form: LibraryForm): Reply {
  const where = error.field ? md` Fix *${error.field}*` : md` Fix the form`;
  return ephemeral(`The platform refused the new library: ${error.userMessage}`, [
    { type: 'text', text: md`:x: The platform refused the new library: ${error.userMessage}` },
    { type: 'text', text: md`:pencil2: Your values are kept.${nest(where)} and submit again.` },
    {
      type: 'actions',
      buttons: [
        {
          text: 'Edit and resubmit',
          actionId: 'library.create:reopen',
          value: reopenValue(form),
          style: 'primary',
        },
      ],
    },
  ]);
}

async function createLibrary(ctx: RunContext, form: LibraryForm, request: LibraryRequest) {
  let library: VideoLibrary;
  try {
    library = await ctx.services.platform.createVideoLibrary(request.body);
  } catch (error) {
    // A refusal (400) is the user's to fix: one reply with the platform's words and the form back.
    if (error instanceof PlatformError && (error.kind === 'bad-request' || error.kind === 'invalid-request'))
      throw new OperationFailedError(error.userMessage, false, rejectedReply(error, form));
    throw error;
  }
  // Registered before the keys go anywhere, so logs and audit rows can only ever show a fingerprint;
  // the access key is never shown, but registered all the same.
  if (library.ApiAccessKey) ctx.services.secrets.add(library.ApiAccessKey);
  const name = library.Name ?? form.name;
  const delivery = await deliverSecret(secretContext(ctx), ctx.surface, {
    to: ctx.userId,
    title: 'Your new video library keys',
    about: md`The keys of *${name}* (library ${library.Id ?? 'id not given'}). Store them in your secret manager now.`,
    secrets: [
      { label: 'API key', value: library.ApiKey ?? undefined },
      { label: 'Read-only API key', value: library.ReadOnlyApiKey ?? undefined },
    ],
    ifLost: 'read them in the platform’s dashboard',
  });
  return createdReply(ctx, request, library, delivery);
}

// ---------------------------------------------------------------- the operation

const LibraryArgsSchema = z.object({
  name: z.string().trim().max(1000, { error: 'the name is too long' }).optional(),
});

/**
 * `/edge library create [NAME]`: opens the "New video library" form; on submit the library is
 * created, the channel sees what it is, and its keys reach the requester alone, by DM.
 */
export const libraryCreate = defineOperation({
  id: 'library.create',
  words: ['library', 'create'],
  usage: '/edge library create [NAME]',
  summary: 'create a video library with a form; its API keys come to you by direct message',
  example: '/edge library create "Product demos"',
  flags: {},
  changes: { interactions: ['form'] },
  // The command and Reopen only open the form; its submission is what an approval rule holds.
  outsideApproval: { command: () => true, interactions: ['reopen'] },
  parse: (positionals) =>
    parseWith(LibraryArgsSchema, { name: positionals.length > 0 ? positionals.join(' ') : undefined }),
  target: (args) => args.name,
  async run(ctx, args) {
    await ctx.surface.openModal(libraryModal({ ...DEFAULT_LIBRARY_FORM, name: args.name ?? '' }));
    return undefined;
  },
  actions: {
    async reopen(ctx, value) {
      const form = readReopenValue(value);
      if (!form) throw new UserFacingError('That button is out of date; run /edge library create again.');
      await ctx.surface.openModal(libraryModal(form));
      return undefined;
    },
  },
  submissions: {
    async form(ctx, submitted) {
      const reading = readLibraryForm(submitted);
      if (!reading.ok) return { errors: reading.errors };
      const request = libraryRequest(reading.form);
      return {
        target: reading.form.name,
        params: request.body,
        run: () => createLibrary(ctx, reading.form, request),
      };
    },
  },
});
