/**
 * One origin-log entry and its inner `log` document (reference 06): the vendor's schemas, and the
 * checks that read them a million times a day. The checks accept and reject exactly what
 * OriginLogEntrySchema and OriginLogDetailSchema do (test/reports/origin/entry.test.ts compares
 * them on generated input), without zod's cost per object and without copying: on a
 * million-entry day that is a fifth of the time budget.
 */
import { z } from 'zod';

/** The documented ErrorCode labels, with the words a summary shows for each. */
export const ORIGIN_ERROR_CODES = {
  dns_lookup: 'origin DNS lookup failed',
  http_timeout: 'origin timed out',
  http_request_exception: 'request to origin failed',
  http_request_failure: 'origin request failure',
  http_invalid_range: 'invalid range request',
  http_loop_detected: 'request loop detected',
  http_invalid_compression: 'invalid compression from origin',
  network_socket_exception: 'socket error to origin',
  network_io_error: 'network I/O error to origin',
  notfound_localdb: 'not found in local database',
  error: 'other error',
} as const;

/** LogEntry (reference 06): the vendor requires none of its fields. */
export const OriginLogEntrySchema = z.looseObject({
  logId: z.string().optional(),
  timestamp: z.number().optional(),
  log: z.string().optional(),
  labels: z
    .looseObject({
      ErrorCode: z.string().optional(),
      StatusCode: z.string().optional(),
      ServerZone: z.string().optional(),
    })
    .default({}),
});

/** The JSON document inside an entry's `log` string. */
export const OriginLogDetailSchema = z.looseObject({
  RequestUrl: z.string().optional(),
  PullZoneId: z.number().optional(),
  Message: z.string().optional(),
  ErrorCode: z.string().optional(),
  StatusCode: z.number().optional(),
});

export interface OriginLabels {
  ErrorCode?: string;
  StatusCode?: string;
  ServerZone?: string;
}

/** The vendor requires none of an entry's fields (reference 06). */
export interface OriginEntry {
  logId?: string;
  timestamp?: number;
  log?: string;
  /** Absent on the wire means no labels, as the schema's default({}). */
  labels?: OriginLabels;
}

export interface OriginDetail {
  RequestUrl?: string;
  PullZoneId?: number;
  Message?: string;
  ErrorCode?: string;
  StatusCode?: number;
}

type Bag = Record<string, unknown>;

function isBag(value: unknown): value is Bag {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
/** zod's z.number() refuses NaN and the infinities. */
const optionalNumber = (value: unknown) =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value));

function isLabels(value: unknown): value is OriginLabels | undefined {
  if (value === undefined) return true;
  return (
    isBag(value) &&
    optionalString(value.ErrorCode) &&
    optionalString(value.StatusCode) &&
    optionalString(value.ServerZone)
  );
}

/** True when `value` passes OriginLogEntrySchema. */
export function isOriginEntry(value: unknown): value is OriginEntry {
  return (
    isBag(value) &&
    optionalString(value.logId) &&
    optionalString(value.log) &&
    optionalNumber(value.timestamp) &&
    isLabels(value.labels)
  );
}

/** True when `value` passes OriginLogDetailSchema. */
export function isOriginDetail(value: unknown): value is OriginDetail {
  return (
    isBag(value) &&
    optionalString(value.RequestUrl) &&
    optionalNumber(value.PullZoneId) &&
    optionalString(value.Message) &&
    optionalString(value.ErrorCode) &&
    optionalNumber(value.StatusCode)
  );
}
