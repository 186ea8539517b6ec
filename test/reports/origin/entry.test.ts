import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isOriginDetail,
  isOriginEntry,
  OriginLogDetailSchema,
  OriginLogEntrySchema,
} from '../../../src/reports/origin/entry.js';

const oddValue = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.array(fc.string(), { maxLength: 2 }),
);

const labels = fc.oneof(
  oddValue,
  fc.record(
    { ErrorCode: oddValue, StatusCode: oddValue, ServerZone: oddValue, Other: oddValue },
    { requiredKeys: [] },
  ),
);

const entry = fc.oneof(
  oddValue,
  fc.record(
    { logId: oddValue, timestamp: oddValue, log: oddValue, labels, extra: oddValue },
    { requiredKeys: [] },
  ),
  fc.record(
    { logId: fc.string(), timestamp: fc.integer(), log: fc.string(), labels },
    { requiredKeys: ['labels'] },
  ),
);

const detail = fc.oneof(
  oddValue,
  fc.record(
    {
      RequestUrl: oddValue,
      PullZoneId: oddValue,
      Message: oddValue,
      ErrorCode: oddValue,
      StatusCode: oddValue,
      Extra: oddValue,
    },
    { requiredKeys: [] },
  ),
);

describe('reading origin-log entries without zod on the hot path', () => {
  it('accepts exactly the entries the wire schema accepts', () => {
    fc.assert(
      fc.property(entry, (value) => {
        expect(isOriginEntry(value)).toBe(OriginLogEntrySchema.safeParse(value).success);
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts exactly the inner documents the wire schema accepts', () => {
    fc.assert(
      fc.property(detail, (value) => {
        expect(isOriginDetail(value)).toBe(OriginLogDetailSchema.safeParse(value).success);
      }),
      { numRuns: 2_000 },
    );
  });
});
