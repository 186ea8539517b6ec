import { z } from 'zod';
import { PlatformError } from '../../platform/errors.js';
import {
  AGGRESSION_NAMES,
  type BotDetectionConfig,
  BotDetectionUpdateSchema,
  EXECUTION_MODE_NAMES,
  SENSITIVITY_NAMES,
} from '../../platform/schemas.js';
import type { ModalOption } from '../../reply/form.js';
import { md } from '../../reply/markup.js';
import { failedExecution, type GatedOperation } from '../approvals/gate.js';
import { defineOperation, parseWith, type RunContext } from '../engine/types.js';
import { namedId, shieldZoneToChange, targetNotFound } from '../shared/change-targets.js';
import { ShieldZoneIdArg } from '../shared/ids.js';

const ZoneSchema = z.object({
  shieldZoneId: ShieldZoneIdArg,
});

const options = (names: readonly string[], from = 0): ModalOption[] =>
  names.slice(from).map((label, i) => ({ value: String(i + from), label: `${label} (${i + from})` }));

const sensitivity = options(SENSITIVITY_NAMES);

/** The form's answers → the PATCH body; every field is sent (omission semantics are not shown). */
const FormSchema = z.object({
  executionMode: z.coerce.number(),
  requestIntegrity: z.coerce.number(),
  ipAddress: z.coerce.number(),
  fingerprint: z.coerce.number(),
  aggression: z.coerce.number(),
  complex: z.array(z.string()).default([]),
});

/** The name of a code; a field the answer left out (the vendor requires none) reads as "?". */
const name = (names: readonly string[], value: unknown) =>
  value === undefined || value === null ? '?' : (names[Number(value)] ?? String(value));

/** How long the form waits for the current settings: Slack's trigger lasts 3 seconds. */
const FORM_READ_MS = 1_500;
/** How long the change waits for them before the card says they are unknown. */
const CARD_READ_MS = 5_000;

/** The zone's settings before the change, as stored with the request: null where unknown. */
const CurrentSchema = z.object({
  executionMode: z.number().int().nullable(),
  requestIntegrity: z.number().int().nullable(),
  ipAddress: z.number().int().nullable(),
  fingerprint: z.number().int().nullable(),
  aggression: z.number().int().nullable(),
  complexEnabled: z.boolean().nullable(),
});
type CurrentSettings = z.infer<typeof CurrentSchema>;

/**
 * The request: the body that is sent, what the zone had when it was asked for, and the pull zone
 * it guards as the platform named it then (absent on requests from before).
 */
const ParamsSchema = z.object({
  settings: BotDetectionUpdateSchema,
  current: CurrentSchema.nullable(),
  zone: z.object({ pullZoneId: z.number().nullable(), pullZoneName: z.string().nullable() }).optional(),
});

function currentFrom(config: BotDetectionConfig): CurrentSettings {
  return {
    executionMode: config.executionMode ?? null,
    requestIntegrity: config.requestIntegrity?.sensitivity ?? null,
    ipAddress: config.ipAddress?.sensitivity ?? null,
    fingerprint: config.browserFingerprint?.sensitivity ?? null,
    aggression: config.browserFingerprint?.aggression ?? null,
    complexEnabled: config.browserFingerprint?.complexEnabled ?? null,
  };
}

/**
 * The zone's current settings, or why they could not be read; never throws, but for a zone the
 * platform says does not exist: that is refused before the form opens.
 */
async function readCurrent(
  ctx: RunContext,
  shieldZoneId: number,
  timeoutMs: number,
): Promise<{ current: CurrentSettings } | { unknown: string }> {
  try {
    const config = await ctx.services.platform.getBotDetection(shieldZoneId, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return config ? { current: currentFrom(config) } : { unknown: 'the platform returned none' };
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'not-found')
      throw targetNotFound(`Shield zone ${shieldZoneId}`, '/edge shield zones');
    // A read stopped while it waited to try again logs what the platform had answered, too.
    const answered =
      error instanceof PlatformError && error.cause instanceof PlatformError ? error.cause : undefined;
    ctx.logger.warn('current bot-detection settings could not be read', {
      shieldZoneId,
      error,
      ...(answered ? { answered } : {}),
    });
    // The id finds the warning above, when the cause is not one the reader can fix. The read's
    // own time limit cancels it: that is the platform not answering in time, not a cancel; or,
    // when it had answered and the time ran out before the next try, what it answered.
    if (error instanceof PlatformError && error.kind === 'aborted')
      return {
        unknown:
          answered !== undefined
            ? `${answered.userMessage.replace(/\.$/, '')}; the form's ${timeoutMs / 1000} s ran out before it asked again; correlation id ${ctx.correlationId}`
            : `the platform did not answer within ${timeoutMs / 1000} s; correlation id ${ctx.correlationId}`,
      };
    return {
      unknown:
        error instanceof PlatformError
          ? error.shownWith(ctx.correlationId)
          : `correlation id ${ctx.correlationId}`,
    };
  }
}

const onOff = (value: boolean | null | undefined) =>
  value === null || value === undefined ? null : value ? 'on' : 'off';

export const botDetectionGate: GatedOperation = {
  id: 'shield.bot-detection',
  describe: (params) =>
    `Update bot detection of Shield zone ${String(ParamsSchema.safeParse(params).data?.settings.shieldZoneId ?? '?')}`,
  fields(params) {
    const { settings: body, current, zone } = ParamsSchema.parse(params);
    const was = <T>(value: T | null | undefined, show: (value: T) => string) =>
      value === null || value === undefined ? null : show(value);
    const label = (names: readonly string[]) => (value: number) => name(names, value);
    return [
      ...(zone
        ? [
            {
              label: 'Shield zone',
              value: `${body.shieldZoneId}${zone.pullZoneId === null ? '' : `, guarding pull zone ${namedId(zone.pullZoneId, zone.pullZoneName)}`}`,
            },
          ]
        : []),
      {
        label: 'Execution mode',
        value: name(EXECUTION_MODE_NAMES, body.executionMode),
        before: was(current?.executionMode, label(EXECUTION_MODE_NAMES)),
      },
      {
        label: 'Request integrity',
        value: name(SENSITIVITY_NAMES, body.requestIntegrity.sensitivity),
        before: was(current?.requestIntegrity, label(SENSITIVITY_NAMES)),
      },
      {
        label: 'IP address',
        value: name(SENSITIVITY_NAMES, body.ipAddress.sensitivity),
        before: was(current?.ipAddress, label(SENSITIVITY_NAMES)),
      },
      {
        label: 'Browser fingerprint',
        value: name(SENSITIVITY_NAMES, body.browserFingerprint.sensitivity),
        before: was(current?.fingerprint, label(SENSITIVITY_NAMES)),
      },
      {
        label: 'Fingerprint aggression',
        value: name(AGGRESSION_NAMES, body.browserFingerprint.aggression),
        before: was(current?.aggression, label(AGGRESSION_NAMES)),
      },
      {
        label: 'Complex fingerprinting',
        value: onOff(body.browserFingerprint.complexEnabled) ?? 'off',
        before: onOff(current?.complexEnabled),
      },
    ];
  },
  async execute(params, ctx) {
    const body = ParamsSchema.parse(params).settings;
    try {
      const result = await ctx.services.platform.updateBotDetection(body);
      const fp = result.browserFingerprint;
      return {
        ok: true,
        detail: `Now: mode ${name(EXECUTION_MODE_NAMES, result.executionMode)}, request integrity ${name(SENSITIVITY_NAMES, result.requestIntegrity?.sensitivity)}, IP ${name(SENSITIVITY_NAMES, result.ipAddress?.sensitivity)}, fingerprint ${name(SENSITIVITY_NAMES, fp?.sensitivity)} / aggression ${name(AGGRESSION_NAMES, fp?.aggression)}, complex ${fp?.complexEnabled == null ? '?' : fp.complexEnabled ? 'on' : 'off'}.`,
      };
    } catch (error) {
      return failedExecution(ctx, error);
    }
  },
};

/** A form value: the current setting when it is one of the options, else the default. */
const initial = (value: number | null, options: ModalOption[], fallback: string) =>
  value !== null && options.some((option) => option.value === String(value)) ? String(value) : fallback;

/** `/edge shield bot-detection ZONE_ID`: a form, then the change (through approval when the policy says so). */
export const shieldBotDetection = defineOperation({
  id: 'shield.bot-detection',
  words: ['shield', 'bot-detection'],
  usage: '/edge shield bot-detection SHIELD_ZONE_ID',
  summary: 'change a Shield zone’s bot detection in a form (approval when the policy asks for it)',
  example: '/edge shield bot-detection 5101',
  flags: {},
  changes: { interactions: ['submit'] },
  parse: (positionals) =>
    positionals.length !== 1
      ? { ok: false, error: 'give exactly one Shield zone id' }
      : parseWith(ZoneSchema, { shieldZoneId: positionals[0] }),
  target: (args) => String(args.shieldZoneId),
  async run(ctx, args) {
    // Read within the trigger's 3 seconds; the form falls back to defaults and says so.
    const read = await readCurrent(ctx, args.shieldZoneId, FORM_READ_MS);
    const current = 'current' in read ? read.current : null;
    const executionModes = options(EXECUTION_MODE_NAMES);
    const aggression = options(AGGRESSION_NAMES, 1);
    await ctx.surface.openModal({
      callbackId: 'shield.bot-detection:submit',
      title: 'Bot detection',
      submit: 'Continue',
      privateMetadata: String(args.shieldZoneId),
      intro: current
        ? md`Shield zone *${args.shieldZoneId}*: the form shows its current settings. Every setting is sent; Off turns a check off.`
        : md`Shield zone *${args.shieldZoneId}*: its current settings could not be read (${'unknown' in read ? read.unknown : ''}), so the form shows defaults. Every setting is sent and replaces what the zone has.`,
      fields: [
        {
          id: 'executionMode',
          label: 'Execution mode',
          kind: 'select',
          options: executionModes,
          initial: initial(current?.executionMode ?? null, executionModes, '0'),
        },
        {
          id: 'requestIntegrity',
          label: 'Request integrity sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: initial(current?.requestIntegrity ?? null, sensitivity, '2'),
        },
        {
          id: 'ipAddress',
          label: 'IP address sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: initial(current?.ipAddress ?? null, sensitivity, '2'),
        },
        {
          id: 'fingerprint',
          label: 'Browser fingerprint sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: initial(current?.fingerprint ?? null, sensitivity, '2'),
        },
        {
          id: 'aggression',
          label: 'Fingerprint aggression',
          kind: 'select',
          options: aggression,
          initial: initial(current?.aggression ?? null, aggression, '2'),
        },
        {
          id: 'complex',
          label: 'Complex fingerprinting',
          kind: 'checkboxes',
          options: [{ value: 'on', label: 'Enable complex fingerprinting' }],
          initial: current?.complexEnabled ? ['on'] : [],
          optional: true,
        },
      ],
    });
    return undefined;
  },
  submissions: {
    async submit(ctx, values, privateMetadata) {
      const zone = ZoneSchema.safeParse({ shieldZoneId: privateMetadata });
      const form = FormSchema.safeParse(values);
      if (!zone.success || !form.success)
        return { errors: { executionMode: 'The form is incomplete; open it again.' } };
      const body = BotDetectionUpdateSchema.safeParse({
        shieldZoneId: zone.data.shieldZoneId,
        executionMode: form.data.executionMode,
        requestIntegrity: { sensitivity: form.data.requestIntegrity },
        ipAddress: { sensitivity: form.data.ipAddress },
        browserFingerprint: {
          sensitivity: form.data.fingerprint,
          aggression: form.data.aggression,
          complexEnabled: form.data.complex.includes('on'),
        },
      });
      if (!body.success)
        return { errors: { executionMode: body.error.issues[0]?.message ?? 'invalid settings' } };
      const settings = body.data;
      return {
        target: String(zone.data.shieldZoneId),
        params: settings,
        run: async () => {
          const zone = await shieldZoneToChange(ctx, settings.shieldZoneId);
          // Read again now, so the card's "before" is what the zone has when the change is asked for.
          const read = await readCurrent(ctx, settings.shieldZoneId, CARD_READ_MS);
          return ctx.services.approvals.submit(ctx, {
            operation: 'shield.bot-detection',
            target: String(settings.shieldZoneId),
            params: { settings, current: 'current' in read ? read.current : null, zone },
            reason: '',
          });
        },
      };
    },
  },
});
