/**
 * Temporary CSV files, written before upload and removed after it. Each name carries the id of
 * the process that wrote it, so that a process starting up can remove what a dead one left.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { type FileHandle, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TEMPORARY_CSV = /^edgeops-(\d+)-([0-9a-f]{16})\.csv$/;

/**
 * Starts the hex part of every name this process writes. A restarted container often gives the
 * bot the same process id again: what the earlier process left has the id but not this mark.
 */
const PROCESS_MARK = randomBytes(3).toString('hex');

/**
 * A fresh CSV file for what is written before upload, created empty and readable by this user
 * alone: its writers open it again (which keeps its mode), and until its upload it holds what
 * the platform sent, a secret the upload masks included, in a folder every user of the host
 * reads. The uploader removes it afterwards.
 */
export function temporaryCsvPath(): string {
  const path = join(tmpdir(), `edgeops-${process.pid}-${PROCESS_MARK}${randomBytes(5).toString('hex')}.csv`);
  // One small call: 'wx' fails rather than take over a file someone else put at that name.
  closeSync(openSync(path, 'wx', CSV_FILE_MODE));
  return path;
}

/**
 * How a report's CSV is opened to be written: created when missing and never truncated. The file
 * is temporaryCsvPath's, empty. Truncating it anyway (`'w'`) has ext4 write all of it out when it
 * is closed, as it does for a file rewritten over an older one (auto_da_alloc): the thread that
 * closes it waits for the disk, 40–70 ms at the end of a million-entry summary. Never through a
 * link either (one planted where a removed temporary file was would have it write, and cut,
 * whatever the link names), nor waiting on a FIFO planted there: that open fails with ENXIO, and
 * O_NONBLOCK changes nothing for a regular file.
 */
export const CSV_WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The mode of a CSV file its writer creates: this user's alone, as temporaryCsvPath makes it. A
 * temporary file removed before its writer opens it (a cleaner of the folder) comes back so, not
 * readable by every user of the host while it holds what the platform sent.
 */
export const CSV_FILE_MODE = 0o600;

/**
 * Cuts a file opened with CSV_WRITE_FLAGS to what was written, when it held more before: a path
 * given that is not temporaryCsvPath's empty file still ends as exactly the CSV.
 */
export async function cutToWritten(file: FileHandle, written: number): Promise<void> {
  if ((await file.stat()).size > written) await file.truncate(written);
}

/** True while a process with that id runs (or exists and is not ours to signal). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary CSVs of processes that no longer run (a crash, a kill), an earlier one
 * with this process's id included. Files of live processes, other replicas on the same host
 * included, are left alone. Returns how many went.
 */
export async function sweepTemporaryFiles(dir: string = tmpdir()): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const match = TEMPORARY_CSV.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const ours = pid === process.pid && match[2]!.startsWith(PROCESS_MARK);
    if (ours || (pid !== process.pid && processAlive(pid))) continue;
    await rm(join(dir, name), { force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}
