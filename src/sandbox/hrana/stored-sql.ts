/** `store_sql` and `close_sql`: SQL texts kept on the stream, for later requests to name by id. */
import { ProtocolError, type RequestContext } from './stream.js';
import type { RequestOf, StreamResponse } from './wire.js';

export function storeSql(ctx: RequestContext, request: RequestOf<'store_sql'>): StreamResponse {
  if (ctx.stream.sqls.has(request.sql_id)) {
    throw new ProtocolError(`SQL text with id ${request.sql_id} is already stored`);
  }
  ctx.stream.sqls.set(request.sql_id, request.sql);
  return { type: 'store_sql' };
}

export function closeSql(ctx: RequestContext, request: RequestOf<'close_sql'>): StreamResponse {
  ctx.stream.sqls.delete(request.sql_id);
  return { type: 'close_sql' };
}
