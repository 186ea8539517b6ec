/**
 * Shield: bot detection (PATCH and GET), WAF enums and the event-log CSV export.
 *
 * Status choices where the vendor's description is silent:
 * - a plan without bot detection answers the PATCH with 403 and the envelope's errorKey
 *   `invalid_plan_type.bot_detection`: 403 is one of the two further envelope statuses the operation
 *   lists, and a plan restriction is a permission problem; the GET answers 202 with the same key,
 *   as the vendor's Terraform provider has observed;
 * - body and content-type problems are problem documents (400, 415), like the rest of the Shield API.
 *
 * Knobs: `shieldNullMessage` sends envelope failures with `message: null` (the vendor marks it
 * nullable); `problemWithoutDetail` sends validation failures as ASP.NET's default
 * ValidationProblemDetails, with `title` and `errors` but no `detail`.
 */

import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { z } from 'zod';
import { exportCsvStream } from '../event-logs.js';
import { hasAccountKey, isJsonContentType, type ParsedJson, sendJson, sendProblem } from '../http.js';
import type { Route, RouteContext } from '../router.js';
import type { SandboxState } from '../state.js';
import { BotDetectionBodySchema, exportBodySchema } from '../vendor-rules.js';

/** Per field, as ASP.NET names them: `filters[0].value[1]`, `browserFingerprint.aggression`. */
function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const path = issue.path
      .map((part, index) =>
        typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`,
      )
      .join('');
    const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : path || '$';
    const message = issue.code === 'unrecognized_keys' ? 'is not a known field' : issue.message;
    errors[field] = [...(errors[field] ?? []), message];
  }
  return errors;
}

/** Shared preamble of the JSON-bodied Shield endpoints: auth, content type, JSON syntax. */
function checkJsonRequest(
  state: SandboxState,
  context: RouteContext,
): (ParsedJson & { ok: true }) | undefined {
  const { req, res, url, json } = context;
  if (!hasAccountKey(req, state.apiKey)) {
    sendProblem(res, 401, 'The AccessKey header is missing or not valid', url.pathname);
    return undefined;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    sendProblem(res, 415, 'Send the body as application/json, text/json or application/*+json', url.pathname);
    return undefined;
  }
  if (!json.ok) {
    sendProblem(
      res,
      400,
      json.empty ? 'A request body is required' : 'The request body is not valid JSON',
      url.pathname,
    );
    return undefined;
  }
  return json;
}

const zoneId = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : undefined);

export function shieldRoutes(state: SandboxState): Route[] {
  const shapes = () => state.knobs.vendorShapes();

  const sendEnvelope = (
    res: ServerResponse,
    status: number,
    data: unknown,
    error: { message: string; errorKey: string } | undefined = undefined,
  ): void => {
    const message = error && !shapes().shieldNullMessage ? error.message : null;
    sendJson(res, status, {
      error: { statusCode: status, success: status === 200, message, errorKey: error?.errorKey ?? null },
      data,
    });
  };

  /** A 400 with the field errors, and with all of them in one sentence as `detail` unless the knob says not. */
  const sendValidationProblem = (res: ServerResponse, errors: Record<string, string[]>, instance: string) => {
    if (shapes().problemWithoutDetail) {
      // What ASP.NET writes for an invalid model by default: no detail, no instance.
      return sendJson(
        res,
        400,
        {
          type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
          title: 'One or more validation errors occurred.',
          status: 400,
          errors,
          traceId: '00-5c0ffee0000000000000000000000000-0000000000000000-00',
        },
        'application/problem+json; charset=utf-8',
      );
    }
    const detail = Object.entries(errors)
      .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
      .join('; ');
    sendProblem(res, 400, detail, instance, { errors });
  };

  const unsupportedPlan = {
    message: 'Bot detection is not available on the plan of this Shield zone',
    errorKey: 'invalid_plan_type.bot_detection',
  };
  const zoneNotFound = { message: 'Shield zone not found', errorKey: 'shield_zone.not_found' };

  return [
    {
      id: 'shield.botDetection',
      listener: 'api',
      method: 'PATCH',
      path: /^\/shield\/shield-zone\/(?<shieldZoneId>[^/]+)\/bot-detection$/,
      handle(context) {
        const json = checkJsonRequest(state, context);
        if (!json) return;
        const { res, url, params } = context;
        const parsed = BotDetectionBodySchema.safeParse(json.value);
        if (!parsed.success) return sendValidationProblem(res, fieldErrors(parsed.error), url.pathname);
        const id = zoneId(params.shieldZoneId);
        if (id !== undefined && parsed.data.shieldZoneId !== id) {
          const mismatch = `${parsed.data.shieldZoneId} does not match the path (${id})`;
          return sendValidationProblem(res, { shieldZoneId: [mismatch] }, url.pathname);
        }
        const zone = id === undefined ? undefined : state.shieldZones.get(id);
        if (!zone) return sendEnvelope(res, 404, null, zoneNotFound);
        if (zone.planType === 0) return sendEnvelope(res, 403, null, unsupportedPlan);
        state.botDetection.set(zone.id, parsed.data);
        sendEnvelope(res, 200, parsed.data);
      },
    },
    {
      id: 'shield.botDetection.get',
      listener: 'api',
      method: 'GET',
      path: /^\/shield\/shield-zone\/(?<shieldZoneId>[^/]+)\/bot-detection$/,
      handle({ req, res, url, params }) {
        if (!hasAccountKey(req, state.apiKey)) {
          return sendProblem(res, 401, 'The AccessKey header is missing or not valid', url.pathname);
        }
        const id = zoneId(params.shieldZoneId);
        const zone = id === undefined ? undefined : state.shieldZones.get(id);
        if (!zone) return sendEnvelope(res, 404, null, zoneNotFound);
        if (zone.planType === 0) return sendEnvelope(res, 202, null, unsupportedPlan);
        sendEnvelope(res, 200, state.botDetection.get(zone.id) ?? null);
      },
    },
    {
      id: 'shield.wafEnums',
      listener: 'api',
      method: 'GET',
      path: /^\/shield\/waf\/enums$/,
      handle({ req, res }) {
        if (!hasAccountKey(req, state.apiKey)) return sendJson(res, 401, { statusCode: 401 });
        sendJson(res, 200, { data: state.data.wafEnums });
      },
    },
    {
      id: 'shield.export',
      listener: 'api',
      method: 'POST',
      path: /^\/shield\/event-logs\/(?<shieldZoneId>[^/]+)\/export$/,
      handle(context) {
        const json = checkJsonRequest(state, context);
        if (!json) return;
        const { res, url, params } = context;
        const parsed = exportBodySchema(state.now()).safeParse(json.value);
        if (!parsed.success) return sendValidationProblem(res, fieldErrors(parsed.error), url.pathname);
        const id = zoneId(params.shieldZoneId);
        const targetBytes = id === undefined ? undefined : state.knobs.exportBytes(id);
        // A zone given a size knob exists for the export, as a pull zone given a log-day knob does.
        if (id === undefined || (!state.shieldZones.has(id) && targetBytes === undefined)) {
          return sendProblem(res, 404, `Shield zone ${params.shieldZoneId} was not found`, url.pathname);
        }
        const { from, to, query, filters } = parsed.data;
        const body = exportCsvStream({
          seed: state.seed,
          shieldZoneId: id,
          from,
          to,
          query: query ?? undefined,
          filters: filters ?? undefined,
          targetBytes,
        });
        res.writeHead(200, {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="shield-events-${id}-${from}-${to}.csv"`,
        });
        // pipeline() stops the generator when the client goes away.
        pipeline(body, res, () => undefined);
      },
    },
  ];
}
