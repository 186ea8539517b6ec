import { z } from 'zod';
import { failedExecution, type GatedOperation } from '../approvals/gated.js';
import {
  AGGRESSION_NAMES,
  BotDetectionUpdateSchema,
  EXECUTION_MODE_NAMES,
  SENSITIVITY_NAMES,
} from '../platform/schemas.js';
import type { ModalOption } from './modal.js';
import { defineOperation, parseWith } from './types.js';

const ZoneSchema = z.object({
  shieldZoneId: z.coerce
    .number({ error: 'the Shield zone id must be a number, e.g. 5101' })
    .int({ error: 'the Shield zone id must be a whole number' })
    .positive({ error: 'the Shield zone id must be positive' }),
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

const name = (names: readonly string[], value: unknown) => names[Number(value)] ?? String(value);

export const botDetectionGate: GatedOperation = {
  id: 'shield.bot-detection',
  describe: (params) => `Update bot detection of Shield zone ${String(params.shieldZoneId)}`,
  fields(params) {
    const body = BotDetectionUpdateSchema.parse(params);
    return [
      { label: 'Execution mode', value: name(EXECUTION_MODE_NAMES, body.executionMode) },
      { label: 'Request integrity', value: name(SENSITIVITY_NAMES, body.requestIntegrity.sensitivity) },
      { label: 'IP address', value: name(SENSITIVITY_NAMES, body.ipAddress.sensitivity) },
      { label: 'Browser fingerprint', value: name(SENSITIVITY_NAMES, body.browserFingerprint.sensitivity) },
      { label: 'Fingerprint aggression', value: name(AGGRESSION_NAMES, body.browserFingerprint.aggression) },
      { label: 'Complex fingerprinting', value: body.browserFingerprint.complexEnabled ? 'on' : 'off' },
    ];
  },
  async execute(params, ctx) {
    const body = BotDetectionUpdateSchema.parse(params);
    try {
      const result = await ctx.services.platform.updateBotDetection(body);
      const fp = result.browserFingerprint;
      return {
        ok: true,
        detail: `Now: mode ${name(EXECUTION_MODE_NAMES, result.executionMode)}, request integrity ${name(SENSITIVITY_NAMES, result.requestIntegrity?.sensitivity)}, IP ${name(SENSITIVITY_NAMES, result.ipAddress?.sensitivity)}, fingerprint ${name(SENSITIVITY_NAMES, fp?.sensitivity)} / aggression ${name(AGGRESSION_NAMES, fp?.aggression)}, complex ${fp?.complexEnabled ? 'on' : 'off'}.`,
      };
    } catch (error) {
      return failedExecution(ctx, error);
    }
  },
};

/** `/edge shield bot-detection ZONE_ID`: a form, then the change (through approval when the policy says so). */
export const shieldBotDetection = defineOperation({
  id: 'shield.bot-detection',
  words: ['shield', 'bot-detection'],
  usage: '/edge shield bot-detection SHIELD_ZONE_ID',
  summary: 'change a Shield zone’s bot detection in a form (approval when the policy asks for it)',
  example: '/edge shield bot-detection 5101',
  flags: {},
  parse: (positionals) =>
    positionals.length !== 1
      ? { ok: false, error: 'give exactly one Shield zone id' }
      : parseWith(ZoneSchema, { shieldZoneId: positionals[0] }),
  target: (args) => String(args.shieldZoneId),
  async run(ctx, args) {
    await ctx.surface.openModal({
      callbackId: 'shield.bot-detection:submit',
      title: 'Bot detection',
      submit: 'Continue',
      privateMetadata: String(args.shieldZoneId),
      intro: `Shield zone *${args.shieldZoneId}*. Every setting is sent; Off turns a check off.`,
      fields: [
        {
          id: 'executionMode',
          label: 'Execution mode',
          kind: 'select',
          options: options(EXECUTION_MODE_NAMES),
          initial: '0',
        },
        {
          id: 'requestIntegrity',
          label: 'Request integrity sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: '2',
        },
        {
          id: 'ipAddress',
          label: 'IP address sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: '2',
        },
        {
          id: 'fingerprint',
          label: 'Browser fingerprint sensitivity',
          kind: 'select',
          options: sensitivity,
          initial: '2',
        },
        {
          id: 'aggression',
          label: 'Fingerprint aggression',
          kind: 'select',
          options: options(AGGRESSION_NAMES, 1),
          initial: '2',
        },
        {
          id: 'complex',
          label: 'Complex fingerprinting',
          kind: 'checkboxes',
          options: [{ value: 'on', label: 'Enable complex fingerprinting' }],
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
      return {
        target: String(zone.data.shieldZoneId),
        params: body.data,
        run: () =>
          ctx.services.approvals.submit(ctx, {
            operation: 'shield.bot-detection',
            target: String(zone.data.shieldZoneId),
            params: body.data,
            reason: '',
          }),
      };
    },
  },
});
