import { MessageChannel } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import countOriginTextsInWorker, { TextCountsSender } from '../../../src/reports/origin/counter.js';
import { IN_WINDOW, OriginTextCounts, type TextCounter } from '../../../src/reports/origin/text-counts.js';

type Told =
  | { seen: [string | undefined, string | undefined] }
  | { counted: [number, string, string, string, string] };

function tell(counter: TextCounter, told: readonly Told[]): void {
  for (const one of told) {
    if ('seen' in one) counter.seen(...one.seen);
    else counter.counted(...one.counted);
  }
}

/** The texts counted on a thread of their own, here the counter's task run beside the test. */
async function countApart(told: readonly Told[], comparisons: number) {
  const { port1, port2 } = new MessageChannel();
  const counting = countOriginTextsInWorker({ port: port2, comparisons });
  const sender = new TextCountsSender(port1);
  tell(sender, told);
  const counts = await sender.finish();
  sender.close();
  return { counts, finished: await counting };
}

function countHere(told: readonly Told[], comparisons: number) {
  const counts = new OriginTextCounts(comparisons);
  tell(counts, told);
  return counts.counts();
}

const label = fc.oneof(
  fc.constantFrom('', 'dns_lookup', '502', 'DE', '(other)', 'unknown'),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const place = fc.oneof(fc.constant(IN_WINDOW), fc.constantFrom(1, 2, 3, IN_WINDOW | 1, IN_WINDOW | 3));
const told: fc.Arbitrary<Told> = fc.oneof(
  fc
    .tuple(fc.option(label, { nil: undefined }), fc.option(label, { nil: undefined }))
    .map((seen) => ({ seen })),
  fc
    .tuple(place, label, label, label, fc.oneof(fc.constantFrom('', '/a', '/b'), fc.string()))
    .map((counted) => ({ counted })),
);

describe('counting the texts of the entries on a thread of their own', () => {
  it('counts exactly what the reader would have counted itself', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(told, { maxLength: 300 }), async (all) => {
        const apart = await countApart(all, 2);
        expect(apart.finished).toBe(true);
        expect(apart.counts).toEqual(countHere(all, 2));
      }),
      { numRuns: 200 },
    );
  });

  it('sends labels past the first few thousand as text, and a batch at a time, and still counts them all', async () => {
    const all: Told[] = Array.from({ length: 12_000 }, (_, i) =>
      i % 3 === 0
        ? { seen: [`code-${i % 5_000}`, i % 2 ? undefined : `zone-${i}`] }
        : {
            counted: [
              i % 4 ? IN_WINDOW : IN_WINDOW | 1,
              `${i % 7}`,
              `code-${i % 6_000}`,
              `zone-${i}`,
              `/u/${i % 3_000}`,
            ],
          },
    );
    const apart = await countApart(all, 1);
    expect(apart.counts).toEqual(countHere(all, 1));
    expect(apart.counts.byServerZone.find((zone) => zone.zone === '(other)')?.count).toBeGreaterThan(0);
  });

  it('numbers no long label, which would be kept on both sides for the rest of the body, and still counts it', async () => {
    const long = `Z${'x'.repeat(5_000)}`;
    const all: Told[] = [
      { seen: ['dns_lookup', long] },
      { counted: [IN_WINDOW, '502', 'dns_lookup', long, '/a'] },
      { counted: [IN_WINDOW, '502', 'dns_lookup', long, '/a'] },
    ];
    const { port1 } = new MessageChannel();
    const sender = new TextCountsSender(port1);
    tell(sender, all);
    const numbered = [...(sender as unknown as { ids: Map<string, number> }).ids.keys()];
    expect(numbered.every((text) => text.length <= 256)).toBe(true);
    expect(numbered).toContain('dns_lookup');
    port1.close();
    const apart = await countApart(all, 0);
    expect(apart.counts).toEqual(countHere(all, 0));
  });

  it('stops without counts when the reader goes away before the body is read', async () => {
    const { port1, port2 } = new MessageChannel();
    const counting = countOriginTextsInWorker({ port: port2, comparisons: 0 });
    const sender = new TextCountsSender(port1);
    sender.counted(IN_WINDOW, '502', 'dns_lookup', 'DE', '/a');
    sender.close();
    expect(await counting).toBe(false);
  });

  it('tells the reader when the counter stopped before it answered', async () => {
    const { port1, port2 } = new MessageChannel();
    const sender = new TextCountsSender(port1);
    const counts = sender.finish();
    port2.close();
    await expect(counts).rejects.toThrow('stopped before it answered');
  });
});
