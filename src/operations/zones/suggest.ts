/**
 * Zones for a picker as the caller types: only kinds they may list here (pullzone.list,
 * shieldzone.list), and only what can be had within the picker's wait. Never throws: nothing is
 * empty, and what was typed is offered as it is.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import type { ZoneKind, ZonePick } from '../../reply/form.js';
import type { ZoneChoice } from '../engine/ports.js';
import { callerOf, type Services, type SuggestionInput } from '../engine/types.js';
import { withTypedId } from './directory.js';

/** The grant that lets a caller see a kind of zone listed. */
const LIST_OPERATION: Record<ZoneKind, 'pullzone.list' | 'shieldzone.list'> = {
  pullzone: 'pullzone.list',
  shieldzone: 'shieldzone.list',
};

export async function suggestZones(
  state: { authorizer: Authorizer; services: Pick<Services, 'zones' | 'logger'> },
  input: SuggestionInput,
): Promise<ZoneChoice[]> {
  const { authorizer, services } = state;
  const logger = services.logger.child({ user: input.userId, channel: input.channelId });
  try {
    const kinds: ZoneKind[] = input.zones === 'any' ? ['pullzone', 'shieldzone'] : [input.zones];
    const allowed: ZoneKind[] = [];
    for (const kind of kinds) {
      // A listing an approval rule holds is not run for a picker either.
      const decision = await authorizer.decide(LIST_OPERATION[kind], callerOf(input));
      if (decision.allowed && !decision.approval) allowed.push(kind);
    }
    if (allowed.length === 0) return withTypedId(input.zones, input.typed, [], input.limit);
    const zones: ZonePick = allowed.length === 2 ? 'any' : allowed[0]!;
    const listed = await services.zones.suggest(zones, input.typed, {
      waitMs: input.waitMs,
      limit: input.limit,
    });
    return withTypedId(input.zones, input.typed, listed, input.limit);
  } catch (error) {
    logger.warn('zone suggestions failed; the picker shows only what was typed', { error });
    return withTypedId(input.zones, input.typed, [], input.limit);
  }
}
