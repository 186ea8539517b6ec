import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh path for a CSV being written before upload; the uploader removes it afterwards. */
export const temporaryCsvPath = (): string => join(tmpdir(), `edgeops-${randomBytes(8).toString('hex')}.csv`);
