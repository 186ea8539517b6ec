/**
 * The event loop's young collections (young-collection.ts): made where the runtime exposes V8's
 * collector, as the image and `npm start` run the bot (and vitest.config.ts runs the tests), and
 * nothing where it does not. That they happen every 8 MiB forwarded is worker-channel.test.ts's.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { collectYoungGarbage, youngCollections, youngCollector } from '../../src/reports/young-collection.js';

describe("the event loop's young collections", () => {
  it('collects with --expose-gc, as the bot runs: V8 reports a young collection', async () => {
    expect(typeof globalThis.gc).toBe('function');
    const minor = new Promise<void>((resolve) => {
      const observer = new PerformanceObserver((list) => {
        const kinds = list
          .getEntries()
          .map((entry) => (entry as { detail?: { kind?: number } }).detail?.kind);
        if (!kinds.includes(constants.NODE_PERFORMANCE_GC_MINOR)) return;
        observer.disconnect();
        resolve();
      });
      observer.observe({ entryTypes: ['gc'] });
    });
    const before = youngCollections();
    collectYoungGarbage();
    expect(youngCollections()).toBe(before + 1);
    await minor;
  });

  it('does nothing where the runtime exposes no collector', () => {
    for (const gc of [undefined, null, 42, 'gc']) expect(youngCollector(gc)()).toBe(false);
    const calls: unknown[] = [];
    expect(youngCollector((options: unknown) => calls.push(options))()).toBe(true);
    expect(calls).toEqual([{ type: 'minor', execution: 'sync' }]);
  });
});
