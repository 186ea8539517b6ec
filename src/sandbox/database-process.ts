/**
 * The sandbox's database process: owns the libSQL connections (database-engine.ts) and runs
 * statements for the process that serves HTTP, one request message at a time over the IPC
 * channel. It leaves when that channel closes, so it never outlives its parent.
 */
import { type DatabaseEngine, openDatabaseEngine } from './database-engine.js';
import { type DatabaseAnswer, type DatabaseRequest, DatabaseRequestSchema } from './database-messages.js';
import { toHranaError } from './statement-error.js';

let engine: DatabaseEngine | undefined;

function opened(): DatabaseEngine {
  if (!engine) throw new Error('the database is not open');
  return engine;
}

async function answer(request: DatabaseRequest): Promise<unknown> {
  switch (request.op) {
    case 'open':
      engine = await openDatabaseEngine({ url: request.url, seed: request.seed });
      return null;
    case 'openSession':
      return opened().openSession();
    case 'execute':
      return opened().execute(request.session, request.statement, request.readOnly);
    case 'releaseSession':
      await opened().releaseSession(request.session);
      return null;
    case 'describe':
      return opened().describe(request.sql);
    case 'close':
      await engine?.close();
      engine = undefined;
      return null;
  }
}

function send(message: DatabaseAnswer): void {
  process.send?.(message);
}

process.on('message', (raw: unknown) => {
  const parsed = DatabaseRequestSchema.safeParse(raw);
  if (!parsed.success) return;
  const request = parsed.data;
  answer(request).then(
    (value) => {
      send({ id: request.id, ok: true, value });
      if (request.op === 'close') process.disconnect();
    },
    (error: unknown) => send({ id: request.id, ok: false, error: toHranaError(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
