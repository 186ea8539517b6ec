/**
 * The event loop's young collections (young-collection.ts): made where the runtime exposes V8's
 * collector, as the image and `npm start` run the bot (and vitest.config.ts runs the tests), and
 * nothing where it does not. That they happen every 8 MiB forwarded is worker-channel.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { collectYoungGarbage, youngCollections, youngCollector } from '../../src/reports/young-collection.js';

describe("the event loop's young collections", () => {
  it('collects with --expose-gc, as the bot runs', () => {
    expect(typeof globalThis.gc).toBe('function');
    const before = youngCollections();
    collectYoungGarbage();
    expect(youngCollections()).toBe(before + 1);
  });

  it('does nothing where the runtime exposes no collector', () => {
    for (const gc of [undefined, null, 42, 'gc']) expect(youngCollector(gc)()).toBe(false);
    const calls: unknown[] = [];
    expect(youngCollector((options: unknown) => calls.push(options))()).toBe(true);
    expect(calls).toEqual([{ type: 'minor', execution: 'sync' }]);
  });
});
