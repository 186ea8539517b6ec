/**
 * The event loop's young collections (young-collection.ts): they happen, and give no context a
 * global `gc`. That they happen every 8 MiB forwarded is worker-channel.test.ts's.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectYoungGarbage, youngCollections } from '../../src/reports/young-collection.js';

describe("the event loop's young collections", () => {
  it('collects on this runtime, and leaves no global gc in this context or a new one', () => {
    const before = youngCollections();
    collectYoungGarbage();
    expect(youngCollections()).toBe(before + 1);
    expect('gc' in globalThis).toBe(false);
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
