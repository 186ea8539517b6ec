/**
 * A young-generation collection on demand, for the event loop while it forwards a long body.
 *
 * Every socket read is a new 64 KiB ArrayBuffer outside the JavaScript heap. Once its bytes are
 * copied into a batch it is garbage, but V8 collects such buffers only once 32 MB of them are
 * young (`Heap::AllocateExternalBackingStore`: twice its largest semi-space), or when the young
 * generation fills, which the event loop's few objects per read seldom make it do. So a 200 MB
 * export held some 32 MB of spent socket buffers at a time, and `malloc` keeps the pages after:
 * its peak RSS was 146–154 MB. Collecting every 8 MiB forwarded, 135–140 MB, at the same CPU time
 * (a young generation of dead objects costs a fraction of a millisecond to collect).
 *
 * V8 hands the collection to code only behind `--expose-gc`, which the image sets (Dockerfile:
 * NODE_OPTIONS) and `npm start` passes. Without it this does nothing, and V8 collects as it would
 * have. The flag is not set at run time: V8's flags are the process's, read by every thread as
 * it makes a context, and the bot starts threads of its own while it loads.
 */

type Collect = (options: { type: 'minor'; execution: 'sync' }) => void;

/** A young collection by `gc`, when it is V8's collector; true when one was made. */
export function youngCollector(gc: unknown): () => boolean {
  if (typeof gc !== 'function') return () => false;
  const collect = gc as Collect;
  return () => {
    collect({ type: 'minor', execution: 'sync' });
    return true;
  };
}

const collector = youngCollector(globalThis.gc);
const collecting = typeof globalThis.gc === 'function';
let collections = 0;

/** Collects the young generation of this thread's heap now, when the runtime allows it. */
export function collectYoungGarbage(): void {
  if (collector()) collections++;
}

/** Whether this thread can collect its young generation on demand: the runtime has `--expose-gc`. */
export function youngCollectionsOn(): boolean {
  return collecting;
}

/** Collections made so far in this thread: for tests. */
export function youngCollections(): number {
  return collections;
}
