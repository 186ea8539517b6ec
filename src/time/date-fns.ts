/**
 * The date-fns functions edgeops uses, loaded from date-fns's CommonJS build. As ES modules they
 * cost about a second of start-up on Node 22 and 24: for each of the ~90 files the loader reads the
 * package's 200 KB package.json again (nodejs/node#58126); the CommonJS files need no such lookup.
 * Same functions, same results: both builds come from one source, and `@date-fns/utc` meets them
 * through a registered symbol, not through module identity.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const { addMilliseconds } =
  require('date-fns/addMilliseconds') as typeof import('date-fns/addMilliseconds');
export const { format } = require('date-fns/format') as typeof import('date-fns/format');
export const { formatDistanceStrict } =
  require('date-fns/formatDistanceStrict') as typeof import('date-fns/formatDistanceStrict');
export const { isValid } = require('date-fns/isValid') as typeof import('date-fns/isValid');
export const { parse } = require('date-fns/parse') as typeof import('date-fns/parse');
export const { parseISO } = require('date-fns/parseISO') as typeof import('date-fns/parseISO');
export const { startOfDay } = require('date-fns/startOfDay') as typeof import('date-fns/startOfDay');
export const { subDays } = require('date-fns/subDays') as typeof import('date-fns/subDays');
