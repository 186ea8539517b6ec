/**
 * What a caller may run, as help, whoami, the menu and the Home ask it: one view per caller over
 * the registry and the authorizer, built for a request by the engine and for a Home redraw alone.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import { whoamiReply } from './access-text.js';
import type { AccessView, AnyOperation, Caller } from './types.js';

/**
 * Each registry's operation ids, as one list for as long as the registry lives: the authorizer
 * remembers its answers under the list itself, so a list made anew per request is never answered
 * from memory.
 */
const idLists = new WeakMap<readonly AnyOperation[], readonly string[]>();

function operationIdsOf(operations: readonly AnyOperation[]): readonly string[] {
  let ids = idLists.get(operations);
  if (!ids) {
    // An operation may have several commands (`help` has two): each id is asked about once.
    ids = [...new Set(operations.map((op) => op.id))];
    idLists.set(operations, ids);
  }
  return ids;
}

export function accessView(
  operations: readonly AnyOperation[],
  authorizer: Authorizer,
  caller: Caller,
): AccessView {
  const operationIds = operationIdsOf(operations);
  return {
    operations: () => operations,
    allowed: () => authorizer.allowedAmong(operationIds, caller),
    held: async () => {
      const ruled = authorizer.ruledAmong(operationIds);
      const allowed = await authorizer.allowedAmong(operationIds, caller);
      return new Set([...ruled].filter((id) => allowed.has(id)));
    },
    explain: async () =>
      whoamiReply(caller, await authorizer.explanation(caller), (id) => {
        const op = operations.find((candidate) => candidate.id === id);
        return op ? `/edge ${op.words.join(' ')}` : undefined;
      }),
  };
}
