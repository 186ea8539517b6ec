/**
 * Where the console puts the files a reply carries (reports, exports, overflow): a folder,
 * `./out` by default. Names are made safe and never overwrite an earlier file; a reply's
 * temporary file is moved in, so the adapter, not the operation, removes it. Every file passes
 * the secret registry on its way in, as every file sent to Slack does.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ReplyFile } from '../reply/model.js';
import type { FileScrub, FileSecretCount } from '../secrets/file-scrub.js';

export interface SavedFile {
  /** Absolute path of the file written. */
  path: string;
  /** The path as printed: relative to the working directory when inside it. */
  shown: string;
  bytes: number;
  /** Secrets of the bot masked in it. */
  masked: number;
}

export interface OutFiles {
  readonly dir: string;
  /** Writes the file with every secret `scrub` holds masked. */
  save(file: ReplyFile, scrub: FileScrub): Promise<SavedFile>;
}

/** File names come from platform data (zone names, ids): keep them to one safe path segment. */
export function safeFileName(name: string): string {
  const cleaned = basename(name.replace(/\\/g, '/'))
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '');
  return cleaned.slice(0, 120) || 'file';
}

const isExists = (error: unknown) =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST';

export function createOutFiles(options: { dir: string; cwd?: string }): OutFiles {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir);

  /** Claims a name that no earlier file has: `report.csv`, then `report-2.csv`, … */
  async function claim(filename: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    const name = safeFileName(filename);
    const extension = extname(name);
    const stem = name.slice(0, name.length - extension.length);
    for (let n = 1; n < 10_000; n++) {
      const path = join(dir, n === 1 ? name : `${stem}-${n}${extension}`);
      try {
        await (await open(path, 'wx')).close();
        return path;
      } catch (error) {
        if (!isExists(error)) throw error;
      }
    }
    throw new Error(`no free file name for ${name} in ${dir}`);
  }

  async function moveInto(source: string, target: string): Promise<void> {
    try {
      await rename(source, target);
    } catch {
      // Another file system (EXDEV) or a busy file: copy, then remove the original.
      await copyFile(source, target);
      await rm(source, { force: true });
    }
  }

  /** A temporary file moved in as it is when it holds no secret, or else copied in masked. */
  async function moveScrubbed(
    source: string,
    target: string,
    scrub: FileScrub,
    known: FileSecretCount | undefined,
  ): Promise<number> {
    const { masked } = await scrub.count(source, known);
    if (masked === 0) {
      await moveInto(source, target);
      return 0;
    }
    await pipeline(createReadStream(source), scrub.stream(), createWriteStream(target));
    return masked;
  }

  const shown = (path: string) => {
    const rel = relative(cwd, path);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  };

  return {
    dir,
    async save(file, scrub) {
      const target = await claim(file.filename);
      let masked: number;
      try {
        if (file.path) masked = await moveScrubbed(file.path, target, scrub, file.secretCount);
        else {
          const scrubbed = scrub.bytes(file.content ?? '');
          masked = scrubbed.masked;
          await writeFile(target, scrubbed.content, { flag: 'w' });
        }
      } catch (error) {
        await rm(target, { force: true });
        throw error;
      } finally {
        if (file.path) await rm(file.path, { force: true });
      }
      return { path: target, shown: shown(target), bytes: (await stat(target)).size, masked };
    },
  };
}
