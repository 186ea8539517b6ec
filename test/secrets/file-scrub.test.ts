import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  commentWithMaskedNote,
  createFileScrub,
  type FileScrub,
  FileSecretCounter,
  fileSecretForms,
  fileStamp,
  SCAN_SLAB,
  scanSlabForTests,
} from '../../src/secrets/file-scrub.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { wasmBytes } from '../../src/secrets/shift-scan-wasm.js';

const scratch = mkdtempSync(join(tmpdir(), 'edgeops-file-scrub-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every way a file may hold a secret: as it is, JSON-escaped, mrkdwn-escaped, quoted in a CSV cell. */
const formsOf = (secret: string): string[] => [
  secret,
  JSON.stringify(secret).slice(1, -1),
  secret.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'),
  secret.replaceAll('"', '""'),
];

/** Cuts `bytes` into chunks of the given sizes, taken in turn until the bytes run out. */
function cut(bytes: Buffer, sizes: readonly number[]): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(Buffer.from(bytes.subarray(at, at + size)));
    at += size;
  }
  return chunks;
}

/** The bytes of `chunks` as they come out of the scrub stream, and how many secrets it masked. */
async function streamed(scrub: FileScrub, chunks: Buffer[]): Promise<{ out: string; masked: number }> {
  const stream = scrub.stream();
  const out = text(stream);
  await pipeline(Readable.from(chunks), stream);
  return { out: await out, masked: stream.masked };
}

/** The plain rule, one character at a time: at each place, the longest form there is masked. */
function reference(content: string, secrets: SecretRegistry, values: readonly string[]) {
  const forms = values.flatMap((secret) =>
    formsOf(secret).map((form) => ({ form, masked: secrets.redact(secret) })),
  );
  let out = '';
  let masked = 0;
  for (let i = 0; i < content.length; ) {
    const here = forms
      .filter(({ form }) => content.startsWith(form, i))
      .sort((a, b) => b.form.length - a.form.length)[0];
    if (here) {
      out += here.masked;
      i += here.form.length;
      masked++;
    } else out += content[i++];
  }
  return { out, masked };
}

const chunkSizes = fc.array(fc.integer({ min: 1, max: 96 }), { minLength: 1, maxLength: 12 });

describe('the file scrub', () => {
  it('masks every secret at any offset across any chunk boundaries, and leaves every other byte as it was', async () => {
    // Secrets of capitals and digits, the text around them of other characters (some of several
    // bytes): what the file should be is then known exactly, secret by secret.
    const secret = fc.stringMatching(/^[A-Z0-9]{8,40}$/);
    const filler = fc
      .array(fc.constantFrom(...'abcxyz ,;"\r\n-', 'é', 'ß', '€', '🚀'), { minLength: 1, maxLength: 200 })
      .map((chars) => chars.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(secret, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(filler, fc.nat()), { minLength: 1, maxLength: 30 }),
        filler,
        chunkSizes,
        async (values, pieces, last, sizes) => {
          const secrets = new SecretRegistry();
          secrets.add(...values);
          let content = '';
          let expected = '';
          for (const [before, pick] of pieces) {
            const placed = values[pick % values.length]!;
            content += before + placed;
            expected += before + secrets.redact(placed);
          }
          content += last;
          expected += last;
          const scrub = createFileScrub(secrets);
          const { out, masked } = await streamed(scrub, cut(Buffer.from(content), sizes));
          for (const value of values) expect(out).not.toContain(value);
          expect(out).toBe(expected);
          expect(masked).toBe(pieces.length);
          const whole = scrub.bytes(content);
          expect(whole.content.toString()).toBe(expected);
          expect(whole.masked).toBe(pieces.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ['in WebAssembly', true],
    ['in JavaScript alone', false],
  ])(
    'masks escaped and overlapping secrets as the plain rule does, however the bytes are cut, %s',
    async (_, wasm) => {
      // A small alphabet of characters that JSON, mrkdwn and CSV escape: secrets overlap, nest and
      // touch, and their escaped forms appear as often as they do.
      const alphabet = ['a', 'b', '"', '\\', '&', '<', '>', 'é', '\n'];
      const secret = fc
        .array(fc.constantFrom(...alphabet), { minLength: 8, maxLength: 12 })
        .map((c) => c.join(''));
      await fc.assert(
        fc.asyncProperty(
          fc.array(secret, { minLength: 1, maxLength: 4 }),
          fc.array(
            fc.oneof(
              fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }).map((c) => c.join('')),
              fc.tuple(fc.nat(), fc.nat({ max: 3 })),
            ),
            { maxLength: 40 },
          ),
          chunkSizes,
          async (values, pieces, sizes) => {
            // Two secrets sharing a form would leave which of them it masks to the order they came in.
            const owners = new Map<string, string>();
            for (const value of values)
              for (const form of formsOf(value)) {
                fc.pre((owners.get(form) ?? value) === value);
                owners.set(form, value);
              }
            const secrets = new SecretRegistry();
            secrets.add(...values);
            const content = pieces
              .map((piece) =>
                typeof piece === 'string' ? piece : formsOf(values[piece[0] % values.length]!)[piece[1]]!,
              )
              .join('');
            const truth = reference(content, secrets, values);
            const scrub = createFileScrub(secrets, [], { wasm });
            const { out, masked } = await streamed(scrub, cut(Buffer.from(content), sizes));
            expect(out).toBe(truth.out);
            expect(masked).toBe(truth.masked);
            for (const form of values.flatMap(formsOf)) expect(out).not.toContain(form);
            // Counted as a report thread counts the file it writes, cut as it was cut.
            if (!wasm) return;
            const counter = new FileSecretCounter(fileSecretForms(secrets));
            for (const chunk of cut(Buffer.from(content), sizes)) counter.push(chunk);
            expect(counter.end('a file')).toEqual({
              masked: truth.masked,
              bytes: Buffer.byteLength(truth.out),
              fileBytes: Buffer.byteLength(content),
              generation: secrets.generation,
              stamp: 'a file',
            });
          },
        ),
        { numRuns: 500 },
      );
    },
  );

  it('finds in WebAssembly what JavaScript finds, secrets across and touching the slabs it copies and their halves', () => {
    const secrets = new SecretRegistry();
    const values = [
      'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90',
      'xoxb-1111-2222-abcdefABCDEF',
      'a"b\\c&d<e>f0123',
    ];
    secrets.add(...values);
    const forms = values.flatMap(formsOf);
    const wasm = createFileScrub(secrets);
    const js = createFileScrub(secrets, [], { wasm: false });
    fc.assert(
      fc.property(
        // Places near each slab's end: a secret that a slab ends inside, or that starts as one
        // starts; and near its half, where the search's second run of moves starts.
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 3 }),
            fc.integer({ min: -120, max: 40 }),
            fc.nat({ max: forms.length - 1 }),
            fc.constantFrom(0, -SCAN_SLAB / 2),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        fc.constantFrom(0, 1, 2),
        (places, shift) => {
          const bytes = Buffer.alloc(3 * SCAN_SLAB + 200, 'x');
          let placed = 0;
          let free = 0;
          const place = ([slab, offset, , half]: (typeof places)[number]) => slab * SCAN_SLAB + half + offset;
          // From the left, each where it fits whole after the last: some touch, none overlap.
          for (const spot of [...places].sort((a, b) => place(a) - place(b))) {
            const form = spot[2];
            const at = Math.max(free, place(spot) + shift);
            // One that would run past the end is not written: cut short, it is no secret.
            if (at + Buffer.byteLength(forms[form]!) > bytes.length) break;
            bytes.write(forms[form]!, at);
            free = at + Buffer.byteLength(forms[form]!);
            placed++;
          }
          const mine = wasm.bytes(bytes);
          const theirs = js.bytes(bytes);
          expect(mine.masked).toBe(placed);
          expect(theirs.masked).toBe(placed);
          expect(mine.content.equals(theirs.content)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds in WebAssembly what JavaScript finds in bytes that look like secrets everywhere', () => {
    // Three letters and a fourth: nearly every block of three bytes ends some secret's window, so
    // the search stops often, on both of its runs of moves, and most stops are no secret.
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[abc]{8,14}$/), { minLength: 1, maxLength: 4 }),
        // Long enough for the search to split its range in two (shift-scan.wat: scanPaired).
        fc.integer({ min: 1_000, max: 12_000 }),
        fc.integer(),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
        (values, length, seed, places) => {
          const secrets = new SecretRegistry();
          secrets.add(...values);
          // The letters from a seed: fast-check's own arrays of this length would be slow to make.
          let state = seed >>> 0;
          const bytes = Buffer.alloc(length);
          for (let i = 0; i < length; i++) {
            state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
            bytes[i] = 'abcx'.charCodeAt(state >>> 30);
          }
          for (const [which, where] of places) {
            const value = values[which % values.length]!;
            if (bytes.length >= value.length) bytes.write(value, where % (bytes.length - value.length + 1));
          }
          const mine = createFileScrub(secrets).bytes(bytes);
          const theirs = createFileScrub(secrets, [], { wasm: false }).bytes(bytes);
          expect(mine.masked).toBe(theirs.masked);
          expect(mine.content.equals(theirs.content)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads nothing past a range that is empty or ends before it starts, in both searches', () => {
    const wasm = (
      globalThis as unknown as {
        WebAssembly: {
          Module: new (b: Uint8Array) => object;
          Instance: new (m: object) => { exports: unknown };
        };
      }
    ).WebAssembly;
    const { scan, scanPaired, memory } = new wasm.Instance(new wasm.Module(wasmBytes)).exports as {
      scan: (end: number, stop: number) => number;
      scanPaired: (end: number, stop: number) => number;
      memory: { buffer: ArrayBuffer };
    };
    // Every block moves the window on by one: a search that ran would end at or past its stop.
    new Uint8Array(memory.buffer).fill(1, 0, 65_536);
    for (const [end, stop] of [
      [70_000, 70_000],
      [75_000, 70_000],
      [200_000, 66_000],
    ] as const) {
      expect(scan(end, stop)).toBe(end);
      expect(scanPaired(end, stop)).toBe(end);
    }
    expect(scanPaired(66_000, 70_000)).toBe(70_000);
  });

  it('masks every secret of a stream whose reader scrubs something else with another matcher meanwhile', async () => {
    const one = new SecretRegistry();
    one.add('AAAAsecret-one-0001');
    const other = new SecretRegistry();
    other.add('BBBBsecret-two-0002');
    const scrubOther = createFileScrub(other);
    const stream = createFileScrub(one).stream();
    const parts: Buffer[] = [];
    // The reader runs as each part is pushed, inside the first matcher's search of its slab.
    stream.on('data', (part: Buffer) => {
      parts.push(part);
      scrubOther.bytes(Buffer.alloc(200_000, 'q'));
    });
    await pipeline(
      Readable.from([Buffer.from(`AAAAsecret-one-0001${'.'.repeat(5000)}AAAAsecret-one-0001`)]),
      stream,
    );
    const out = Buffer.concat(parts).toString();
    expect(out).not.toContain('secret-one');
    expect(stream.masked).toBe(2);
  });

  it('counts a file as the upload will send it, a secret across its 1 MiB reads included', async () => {
    const secrets = new SecretRegistry();
    const key = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';
    secrets.add(key);
    const content = `${'x'.repeat(1024 * 1024 - 10)}${key},${'y'.repeat(5000)}${key}`;
    const path = join(scratch, 'across.csv');
    writeFileSync(path, content);
    const scrub = createFileScrub(secrets);
    const whole = scrub.bytes(content);
    expect(await scrub.count(path)).toEqual({ masked: 2, bytes: whole.content.length });
    expect(whole.content.toString()).not.toContain(key);
    expect(whole.content.toString()).toContain('x[redacted …7d90],y');
  });

  it('leaves none of a file’s bytes in the WebAssembly memory its search copies them into', async () => {
    const secrets = new SecretRegistry();
    const key = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';
    secrets.add(key);
    // The secret lies in the last slab the search copies in, and the one masked after it in the stream's.
    const content = `${'z'.repeat(3 * SCAN_SLAB)}${key}${'z'.repeat(100)}`;
    const path = join(scratch, 'wiped.csv');
    writeFileSync(path, content);
    const scrub = createFileScrub(secrets);
    const inMemory = () => Buffer.from(scanSlabForTests() ?? new Uint8Array(0));
    expect((await scrub.count(path)).masked).toBe(1);
    expect(inMemory().length).toBe(SCAN_SLAB);
    expect(inMemory().every((byte) => byte === 0)).toBe(true);
    expect((await streamed(scrub, cut(Buffer.from(content), [SCAN_SLAB + 7]))).masked).toBe(1);
    expect(inMemory().every((byte) => byte === 0)).toBe(true);
    // A stream stopped midway, as a failed upload stops it.
    const stopped = scrub.stream();
    stopped.on('data', () => undefined);
    stopped.write(Buffer.from(`${'z'.repeat(SCAN_SLAB)}${key}${'private bytes '.repeat(100)}`));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(inMemory().some((byte) => byte !== 0)).toBe(true);
    stopped.on('error', () => undefined);
    const closed = new Promise((resolve) => stopped.once('close', resolve));
    stopped.destroy(new Error('the upload failed'));
    await closed;
    expect(inMemory().every((byte) => byte === 0)).toBe(true);
  });

  it('counts a file of many reads, a secret across each of them, as the bytes would be scrubbed', async () => {
    const secrets = new SecretRegistry();
    const key = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';
    secrets.add(key);
    const MiB = 1024 * 1024;
    // Each read's last bytes begin a secret that the next read ends; each read holds its own filler.
    const parts = ['a', 'b', 'c', 'd'].map((filler, i) => filler.repeat(MiB - (i === 0 ? 20 : key.length)));
    const content = `${parts.join(key)}${key}`;
    const path = join(scratch, 'reads.csv');
    writeFileSync(path, content);
    const scrub = createFileScrub(secrets);
    const whole = scrub.bytes(content);
    expect(whole.masked).toBe(4);
    expect(await scrub.count(path)).toEqual({ masked: 4, bytes: whole.content.length });
  });

  it('takes the count made as a file was written only while its secrets are the scrub’s and the file is as written', async () => {
    const secrets = new SecretRegistry();
    const key = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';
    const later = 'xoxb-later-0000-registered';
    secrets.add(key);
    const content = `${key},${'x'.repeat(3 * SCAN_SLAB)}${key}\r\n${later}`;
    const path = join(scratch, 'written.csv');
    writeFileSync(path, content);
    const counter = new FileSecretCounter(fileSecretForms(secrets));
    for (const chunk of cut(Buffer.from(content), [SCAN_SLAB + 5, 333])) counter.push(chunk);
    const known = counter.end(fileStamp(statSync(path, { bigint: true })));
    const whole = createFileScrub(secrets).bytes(content);
    expect(known).toMatchObject({ masked: 2, bytes: whole.content.length, fileBytes: content.length });
    expect(await createFileScrub(secrets).count(path, known)).toEqual({
      masked: 2,
      bytes: whole.content.length,
    });
    // A count unlike the file's tells which was taken: this one, as it is, or the file's own.
    const told = { ...known, masked: 7, bytes: 11 };
    expect(await createFileScrub(secrets).count(path, told)).toEqual({ masked: 7, bytes: 11 });
    // A scrub that keeps a secret out counts by itself.
    expect((await createFileScrub(secrets, [key]).count(path, told)).masked).toBe(0);
    // A count of a file of another length is not taken.
    expect(
      (await createFileScrub(secrets).count(path, { ...told, fileBytes: content.length + 1 })).masked,
    ).toBe(2);
    // A secret added since is found: the file is read with every secret the registry holds now;
    // a scrub made before it holds the secrets counted.
    const before = createFileScrub(secrets);
    secrets.add(later);
    expect((await createFileScrub(secrets).count(path, told)).masked).toBe(3);
    expect((await before.count(path, told)).masked).toBe(7);
    // A file changed since it was written, at the same length, is read again.
    const changed = content.replace(later, key.slice(0, later.length));
    writeFileSync(path, changed);
    utimesSync(path, new Date(0), new Date(0));
    expect(Buffer.byteLength(changed)).toBe(content.length);
    expect((await before.count(path, told)).masked).toBe(2);
    // Adding a secret it holds already changes nothing.
    const generation = secrets.generation;
    secrets.add(key, later);
    expect(secrets.generation).toBe(generation);
    // Another registry with the same secrets has a generation of its own.
    const other = new SecretRegistry();
    other.add(key, later);
    expect(other.generation).not.toBe(secrets.generation);
  });

  it('leaves alone a secret the file exists to deliver, and returns a file without secrets as it was', () => {
    const secrets = new SecretRegistry();
    secrets.add('pk_live_0123456789', 'pk_live_abcdefghij');
    const scrub = createFileScrub(secrets, ['pk_live_0123456789']);
    const masked = scrub.bytes('new: pk_live_0123456789, old: pk_live_abcdefghij');
    expect(masked.content.toString()).toBe('new: pk_live_0123456789, old: [redacted …ghij]');
    const clean = Buffer.from('nothing secret here');
    expect(scrub.bytes(clean).content).toBe(clean);
  });

  it('says in the comment how many values were masked', () => {
    expect(commentWithMaskedNote('25 rows', 0)).toBe('25 rows');
    expect(commentWithMaskedNote('25 rows', 1)).toBe(
      '25 rows\n1 value that is a secret of this bot was masked.',
    );
    expect(commentWithMaskedNote(undefined, 1_200)).toBe(
      '1,200 values that are secrets of this bot were masked.',
    );
  });
});
