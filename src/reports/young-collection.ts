/**
 * A young-generation collection on demand, for the event loop while it forwards a long body.
 *
 * Every socket read is a new 64 KiB ArrayBuffer outside the JavaScript heap. Once its bytes are
 * copied into a batch it is garbage, but V8 collects such buffers only once 32 MB of them are
 * young (`Heap::AllocateExternalBackingStore`: twice its largest semi-space), or when the young
 * generation fills, which the event loop's few objects per read seldom make it do. So a 200 MB
 * export held some 32 MB of spent socket buffers at a time, and `malloc` keeps the pages after:
 * its peak RSS was 147–158 MB. Collecting every 8 MB forwarded, 135–139 MB, at the same CPU time
 * (a young generation of dead objects costs a fraction of a millisecond to collect).
 *
 * V8 hands the collection to code only behind `--expose-gc`. The flag is set just long enough to
 * make one context of our own, whose `gc` is kept here, and unset again: no other context, the
 * bot's or a worker's, gets a global `gc`. Where that fails (a runtime that refuses flags), the
 * collection does nothing and V8 collects as it would have.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor'; execution: 'sync' }) => void;

function collector(): Collect | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

let collect: Collect | undefined | null = null;
let collections = 0;

/** Collects the young generation of this thread's heap now, when V8 allows it. */
export function collectYoungGarbage(): void {
  if (collect === null) collect = collector();
  if (!collect) return;
  collect({ type: 'minor', execution: 'sync' });
  collections++;
}

/** Collections made so far in this thread: for tests. */
export function youngCollections(): number {
  return collections;
}
