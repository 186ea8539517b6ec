/**
 * POST /pullzone/{id}/resetSecurityKey: 204 on success. A missing body or a null SecurityKey lets
 * the platform pick the key, as the vendor's own example does; a given key must be 8–36 characters.
 */
import { randomUUID } from 'node:crypto';
import { hasAccountKey, sendApiError, sendEmpty } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';
import { ResetSecurityKeyBodySchema } from '../vendor-rules.js';

export function pullZoneRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'pullzone.resetSecurityKey',
      listener: 'api',
      method: 'POST',
      path: /^\/pullzone\/(?<id>[^/]+)\/resetSecurityKey$/,
      handle({ req, res, params, json }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const zone = /^\d+$/.test(params.id ?? '') ? state.pullZones.get(Number(params.id)) : undefined;
        if (!zone) return sendEmpty(res, 404);
        if (!json.ok && !json.empty) {
          return sendApiError(res, 'validation_error', null, 'The request body is not valid JSON');
        }
        if (!json.ok) {
          zone.securityKey = randomUUID();
          return sendEmpty(res, 204);
        }
        const parsed = ResetSecurityKeyBodySchema.safeParse(json.value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = issue?.code === 'unrecognized_keys' ? (issue.keys[0] ?? null) : 'SecurityKey';
          return sendApiError(
            res,
            'pullZone.invalid_security_key',
            field,
            field === 'SecurityKey'
              ? 'SecurityKey must be between 8 and 36 characters long'
              : `The field ${field} is not part of the model`,
          );
        }
        zone.securityKey = parsed.data.SecurityKey ?? randomUUID();
        sendEmpty(res, 204);
      },
    },
  ];
}
