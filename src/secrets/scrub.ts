/**
 * The deep scrub: every registered secret replaced in every string of a payload (a message, a
 * view), on its way out of the bot.
 */
import type { SecretRegistry } from './registry.js';

/** An object literal's prototype: only such objects are passed on as they are. */
const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * Applies `change` to every string in a JSON-like value. A plain object or array it leaves
 * alone is returned as it was, not copied: every answer passes here, and most have nothing to
 * change. Anything else (a class instance, whose toJSON could say more than its fields) becomes
 * a plain object of its own fields, each field read once.
 */
function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === 'string') return change(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const changed = mapStrings(item, change);
      if (changed !== item) {
        out ??= value.slice();
        out[i] = changed;
      }
    }
    return (out ?? value) as T;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const mapped = entries.map(([key, child]) => [key, mapStrings(child, change)] as const);
    if (isPlainObject(value) && mapped.every(([, child], i) => child === entries[i]![1])) return value;
    return Object.fromEntries(mapped) as T;
  }
  return value;
}

/**
 * A payload (a message, a view, printed text) with every registered secret scrubbed from its
 * strings, except those in `keep`: the secrets a reply exists to deliver to the one who asked.
 */
export const scrubbed = <T>(secrets: SecretRegistry, value: T, keep: readonly string[] = []): T =>
  mapStrings(value, (text) => secrets.redact(text, keep));
