/**
 * ModalSpec → a Block Kit modal view, and the submitted view state → ModalValues.
 * Each field is one input block whose block_id and action_id are the field id.
 */
import type { types } from '@slack/bolt';
import { truncate } from '../../reply/escape.js';
import {
  hintText,
  type ModalField,
  type ModalOption,
  type ModalSpec,
  type ModalValues,
  type ZonePick,
  zoneOptionValue,
} from '../../reply/form.js';
import type { Reply } from '../../reply/model.js';
import {
  CHECKBOX_MAX_OPTIONS,
  INPUT_HINT_MAX,
  INPUT_LABEL_MAX,
  MODAL_CLOSE_MAX,
  MODAL_MAX_BLOCKS,
  MODAL_SUBMIT_MAX,
  MODAL_TITLE_MAX,
  OPTION_TEXT_MAX,
  OPTION_VALUE_MAX,
  PLACEHOLDER_MAX,
  PRIVATE_METADATA_MAX,
  SECTION_TEXT_MAX,
  STATIC_SELECT_MAX_OPTIONS,
} from '../limits.js';
import { renderReplyWithoutTables } from './reply.js';

/** The callback id of a panel: it has no submit, so nothing routes on it. */
const PANEL_CALLBACK = 'panel';

const plain = (text: string, max: number) => ({
  type: 'plain_text' as const,
  text: truncate(text, max),
  emoji: true,
});

const option = (o: ModalOption) => ({
  text: plain(o.label, OPTION_TEXT_MAX),
  value: o.value.slice(0, OPTION_VALUE_MAX),
});

/**
 * A zone picker's action id names which zones it offers; the block_suggestion listener reads it
 * back (listeners/options.ts). The block id stays the field id, which is how values are read.
 */
const ZONE_PICKER = /^pick-zone:(pullzone|shieldzone|any)$/;
export const ZONE_PICKER_ACTION = ZONE_PICKER;

export const zonePickerActionId = (zones: ZonePick): string => `pick-zone:${zones}`;

export function zonesOfPicker(actionId: string): ZonePick | undefined {
  return ZONE_PICKER.exec(actionId)?.[1] as ZonePick | undefined;
}

const ZONE_WORDS: Record<ZonePick, string> = {
  pullzone: 'Pull zone',
  shieldzone: 'Shield zone',
  any: 'Zone',
};

/** How a zone is named in a picker before Slack has asked for names (a pre-filled id). */
export const zoneOptionLabel = (zones: ZonePick, id: number): string => `${ZONE_WORDS[zones]} ${id}`;

function element(field: ModalField): Record<string, unknown> {
  const action_id = field.id;
  switch (field.kind) {
    case 'text':
      return {
        type: 'plain_text_input',
        action_id,
        multiline: field.multiline ?? false,
        ...(field.initial !== undefined && field.initial !== '' ? { initial_value: field.initial } : {}),
      };
    case 'number':
      return {
        type: 'number_input',
        action_id,
        is_decimal_allowed: false,
        ...(field.initial !== undefined ? { initial_value: String(field.initial) } : {}),
        ...(field.min !== undefined ? { min_value: String(field.min) } : {}),
        ...(field.max !== undefined ? { max_value: String(field.max) } : {}),
      };
    case 'select': {
      const options = field.options.slice(0, STATIC_SELECT_MAX_OPTIONS).map(option);
      const initial = options.find((o) => o.value === field.initial);
      return { type: 'static_select', action_id, options, ...(initial ? { initial_option: initial } : {}) };
    }
    case 'multiselect': {
      const options = field.options.slice(0, STATIC_SELECT_MAX_OPTIONS).map(option);
      const initial = options.filter((o) => field.initial?.includes(o.value));
      return {
        type: 'multi_static_select',
        action_id,
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
      };
    }
    case 'checkboxes': {
      const options = field.options.slice(0, CHECKBOX_MAX_OPTIONS).map(option);
      const initial = options.filter((o) => field.initial?.includes(o.value));
      return {
        type: 'checkboxes',
        action_id,
        options,
        ...(initial.length > 0 ? { initial_options: initial } : {}),
      };
    }
    case 'zone':
      return {
        type: 'external_select',
        action_id: zonePickerActionId(field.zones),
        // Zero: the first zones show as soon as the menu opens, before anything is typed.
        min_query_length: 0,
        placeholder: plain('Type a name or an id', PLACEHOLDER_MAX),
        ...(field.initial !== undefined
          ? {
              initial_option: option({
                value: zoneOptionValue(field.zones, field.initial.kind, field.initial.id),
                label: zoneOptionLabel(field.initial.kind, field.initial.id),
              }),
            }
          : {}),
      };
    case 'entries':
      // A modal cannot ask whether to add one: a line an entry, as `hint` says how to write it.
      return {
        type: 'plain_text_input',
        action_id,
        multiline: true,
        ...(field.initial && field.initial.length > 0 ? { initial_value: field.initial.join('\n') } : {}),
      };
    case 'datetime':
      return {
        type: 'datetimepicker',
        action_id,
        ...(field.initial !== undefined ? { initial_date_time: Math.floor(field.initial / 1000) } : {}),
      };
  }
}

export function renderModal(modal: ModalSpec): types.ModalView {
  const blocks: Record<string, unknown>[] = [];
  if (modal.intro)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(modal.intro, SECTION_TEXT_MAX) } });
  for (const field of modal.fields) {
    const hint = hintText(field);
    blocks.push({
      type: 'input',
      block_id: field.id,
      label: plain(field.label, INPUT_LABEL_MAX),
      optional: field.optional ?? false,
      element: element(field),
      ...(hint ? { hint: plain(hint, INPUT_HINT_MAX) } : {}),
    });
  }
  return {
    type: 'modal',
    callback_id: modal.callbackId,
    title: plain(modal.title, MODAL_TITLE_MAX),
    submit: plain(modal.submit, MODAL_SUBMIT_MAX),
    close: plain('Cancel', MODAL_SUBMIT_MAX),
    private_metadata: modal.privateMetadata.slice(0, PRIVATE_METADATA_MAX),
    blocks: blocks.slice(0, MODAL_MAX_BLOCKS) as unknown as types.ModalView['blocks'],
  };
}

/** A reply shown in a modal with no submit (the menu): its blocks as a message would show them. */
export function renderPanel(title: string, reply: Reply, privateMetadata: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: PANEL_CALLBACK,
    title: plain(title, MODAL_TITLE_MAX),
    close: plain('Close', MODAL_CLOSE_MAX),
    private_metadata: privateMetadata.slice(0, PRIVATE_METADATA_MAX),
    blocks: renderReplyWithoutTables(reply).blocks.slice(0, MODAL_MAX_BLOCKS) as types.ModalView['blocks'],
  };
}

interface ViewStateValue {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
  selected_date_time?: number | null;
}

/** Reads `view.state.values` back into field id → value(s). */
export function readViewValues(
  state: Record<string, Record<string, ViewStateValue>> | undefined,
): ModalValues {
  const values: ModalValues = {};
  for (const [blockId, actions] of Object.entries(state ?? {})) {
    const entry = actions[blockId] ?? Object.values(actions)[0];
    if (!entry) continue;
    if (entry.selected_options) values[blockId] = entry.selected_options.map((o) => o.value);
    else if (entry.selected_option !== undefined) values[blockId] = entry.selected_option?.value ?? undefined;
    else if (entry.selected_date_time !== undefined)
      values[blockId] =
        entry.selected_date_time === null ? undefined : String(entry.selected_date_time * 1000);
    else values[blockId] = entry.value ?? undefined;
  }
  return values;
}
