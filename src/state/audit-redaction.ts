import { TokenAuthorization } from '../database/token-authorization.js';
import { fingerprint, type SecretRegistry } from '../secrets/registry.js';
import type { JsonValue } from './canonical-json.js';

/** Name fragments of parameters that carry credentials (compared lower-case, without `_` or `-`). */
const SECRET_NAME = /key|token|secret|passw|passphrase|authorization|credential|cookie/;
/** Names that only point at a credential (`tokenId`, `apiKeyIds`) stay readable. */
const REFERENCE_NAME = /(id|ids)$/;
/** A database token's `authorization` is its access mode, not a credential, and audits need it. */
const ACCESS_MODES: ReadonlySet<string> = new Set(TokenAuthorization);

/** Shorter values would be mostly revealed by their last 4 characters. */
const FINGERPRINT_MIN_LENGTH = 8;

export function looksSecret(name: string): boolean {
  const normalised = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAME.test(normalised) && !REFERENCE_NAME.test(normalised);
}

function mask(value: string): string {
  return value.length >= FINGERPRINT_MIN_LENGTH ? fingerprint(value) : '[redacted]';
}

/**
 * Turns parameters into JSON that is safe to store: values under secret-looking names become
 * fingerprints, every registered secret is redacted from every string (keys included), and
 * what JSON cannot carry (functions, NaN, cycles) is dropped or made null.
 */
export function removeSecrets(
  params: Record<string, unknown>,
  secrets: SecretRegistry,
): Record<string, JsonValue> {
  const seen = new WeakSet<object>();

  // `secretName` is the parameter name when it looked secret; arrays pass it on to their items.
  const clean = (value: unknown, secretName: string | null): JsonValue | undefined => {
    if (value === null || value === undefined) return value === null ? null : undefined;
    switch (typeof value) {
      case 'string':
        if (secretName === null) return secrets.redact(value);
        if (/^authorization$/i.test(secretName) && ACCESS_MODES.has(value)) return value;
        return mask(value);
      case 'number':
        if (!Number.isFinite(value)) return null;
        return secretName === null ? value : mask(String(value));
      case 'bigint':
        return secretName === null ? secrets.redact(value.toString()) : mask(value.toString());
      case 'boolean':
        return value;
      case 'object':
        break;
      default:
        return undefined;
    }
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    try {
      if (Array.isArray(value) || value instanceof Set)
        return [...value].map((item) => clean(item, secretName) ?? null);
      if (value instanceof Map)
        return cleanRecord([...value].map(([key, item]): [string, unknown] => [String(key), item]));
      // Dates, URLs and the like say how they serialise; follow them as JSON.stringify would.
      if ('toJSON' in value && typeof value.toJSON === 'function') return clean(value.toJSON(), secretName);
      return cleanRecord(Object.entries(value));
    } finally {
      seen.delete(value);
    }
  };

  const cleanRecord = (entries: [string, unknown][]): Record<string, JsonValue> => {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of entries) {
      const cleaned = clean(item, looksSecret(key) ? key : null);
      if (cleaned !== undefined) out[secrets.redact(key)] = cleaned;
    }
    return out;
  };

  return cleanRecord(Object.entries(params));
}

/** A free-text field (target, detail) with every registered secret redacted. */
export function redactText(value: string | null, secrets: SecretRegistry): string | null {
  return value === null ? null : secrets.redact(value);
}
