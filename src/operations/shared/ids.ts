/**
 * A platform id as people type it: digits only. `z.coerce.number` would read `1e3` as 1000,
 * `0x10` as 16 and `12.0` as 12, so an id typed wrong would name another zone (and its key reset
 * or purge) instead of being refused. A number (from a form or a button) is taken as it is.
 */
import { z } from 'zod';
import { PLATFORM_ID_DIGITS } from '../../reply/form.js';

export function platformIdArg(what: string, example: number) {
  return z.preprocess(
    (value) =>
      typeof value === 'string'
        ? PLATFORM_ID_DIGITS.test(value.trim())
          ? Number(value)
          : Number.NaN
        : value,
    z
      .number({ error: `the ${what} id must be a number in digits, e.g. ${example}` })
      .int({ error: `the ${what} id must be a whole number` })
      .positive({ error: `the ${what} id must be positive` }),
  );
}

/** A pull zone id: every command that takes one reads it alike. */
export const PullZoneIdArg = platformIdArg('pull zone', 308006);

/** A Shield zone id: `/edge shield export`, `/edge shield bot-detection` and Shield digests read it alike. */
export const ShieldZoneIdArg = platformIdArg('Shield zone', 5101);
