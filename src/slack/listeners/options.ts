import { setTimeout as sleep } from 'node:timers/promises';
import type { App, BlockSuggestion } from '@slack/bolt';
import type { ZoneChoice } from '../../operations/engine/ports.js';
import { withTypedId } from '../../operations/zones/directory.js';
import { truncate } from '../../reply/escape.js';
import { type ZonePick, zoneOptionValue } from '../../reply/form.js';
import { unwrapMetadata } from '../blocks/metadata.js';
import { ZONE_PICKER_ACTION, zonesOfPicker } from '../blocks/modal.js';
import {
  ACK_DEADLINE_MS,
  EXTERNAL_SELECT_MAX_OPTIONS,
  OPTION_GROUP_LABEL_MAX,
  OPTION_TEXT_MAX,
} from '../limits.js';
import type { ListenerDeps } from './deps.js';

/** How long the platform may take to list zones: the answer must reach Slack within its 3 s. */
export const ZONE_SUGGESTION_WAIT_MS = 2_000;
/** Everything else (the access check included) fits in what is left of Slack's deadline. */
const ANSWER_BY_MS = ACK_DEADLINE_MS - 500;

function optionText(zone: ZoneChoice): string {
  const kind = `${zone.kind === 'pullzone' ? 'Pull zone' : 'Shield zone'} ${zone.id}`;
  if (zone.typed) return `${kind} (as typed)`;
  return zone.name ? `${zone.name} · ${kind}` : kind;
}

/** A zone as the picker offers it; its value carries the kind where the picker takes both. */
const option = (zones: ZonePick) => (zone: ZoneChoice) => ({
  text: { type: 'plain_text' as const, text: truncate(optionText(zone), OPTION_TEXT_MAX) },
  value: zoneOptionValue(zones, zone.kind, zone.id),
});

const group = (label: string, zones: ZoneChoice[]) => ({
  label: { type: 'plain_text' as const, text: truncate(label, OPTION_GROUP_LABEL_MAX) },
  options: zones.map(option('any')),
});

/**
 * A zone picker's menu (block_suggestion): the zones matching what was typed, answered inside
 * the acknowledgement, within Slack's deadline whatever the platform does.
 */
export function registerOptions(app: App, options: ListenerDeps): void {
  app.options<'block_suggestion'>(
    { type: 'block_suggestion', action_id: ZONE_PICKER_ACTION },
    async ({ ack, body }) => {
      const received = performance.now();
      const suggestion = body as BlockSuggestion;
      const zones = zonesOfPicker(suggestion.action_id) ?? 'any';
      const { channelId } = unwrapMetadata(suggestion.view?.private_metadata);
      const typed = suggestion.value ?? '';
      const answer = options.engine.suggestZones({
        userId: suggestion.user.id,
        channelId: channelId || (suggestion.channel?.id ?? ''),
        zones,
        typed,
        waitMs: ZONE_SUGGESTION_WAIT_MS,
        limit: EXTERNAL_SELECT_MAX_OPTIONS,
      });
      const late = sleep(ANSWER_BY_MS, withTypedId(zones, typed, [], EXTERNAL_SELECT_MAX_OPTIONS), {
        ref: false,
      });
      const choices = await Promise.race([answer, late]);
      if (zones === 'any') {
        const pulls = choices.filter((zone) => zone.kind === 'pullzone');
        const shields = choices.filter((zone) => zone.kind === 'shieldzone');
        const groups = [
          ...(pulls.length > 0 ? [group('Pull zones', pulls)] : []),
          ...(shields.length > 0 ? [group('Shield zones', shields)] : []),
        ];
        // Slack takes an empty `options` for "nothing found"; an empty group list it refuses.
        await ack(groups.length > 0 ? { option_groups: groups } : { options: [] });
      } else await ack({ options: choices.map(option(zones)) });
      options.metrics.ackObserved((performance.now() - received) / 1000);
    },
  );
}
