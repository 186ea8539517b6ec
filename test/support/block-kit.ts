/**
 * Offline Block Kit validation: the shared JSON Schemas for what a single block can be, and
 * checkMessageLimits/checkViewLimits for the payload-wide rules a per-block schema cannot express.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { z } from 'zod';
import {
  MESSAGE_MAX_BLOCKS,
  MESSAGE_TEXT_BUDGET,
  MESSAGE_TEXT_MAX,
  MODAL_MAX_BLOCKS,
  OPTION_VALUE_MAX,
} from '../../src/slack/limits.js';

// ajv-formats is CommonJS; under NodeNext its default export sits on `.default`.
const addFormats = ajvFormats.default;

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const slackSchemasDir = path.resolve(repoRoot, '../shared/reference/slack-schemas');

/** False when ../shared/reference is not checked out next to the repository: skip schema tests. */
export const schemasAvailable = existsSync(slackSchemasDir);

const NOTICE_PRINTED = Symbol.for('edgeops.test.schemaNotice');
if (!schemasAvailable) {
  const registry = globalThis as unknown as Record<symbol, boolean>;
  if (!registry[NOTICE_PRINTED]) {
    registry[NOTICE_PRINTED] = true;
    console.warn('shared/reference not found: skipping schema validation');
  }
}

/** Reads one schema file from the shared folder, e.g. `slack-app-manifest.v1.schema.json`. */
export function readSlackSchema(fileName: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(readFileSync(path.join(slackSchemasDir, fileName), 'utf8'));
  return z.record(z.string(), z.unknown()).parse(parsed);
}

const BLOCK_KIT_ID = 'https://tightknit.com/schemas/slack-block-kit.schema.json';

interface BlockKitValidators {
  ajv: Ajv2020;
  blocks: ValidateFunction;
  modal: ValidateFunction;
  home: ValidateFunction;
  byType: Map<string, ValidateFunction | null>;
}

let validators: BlockKitValidators | undefined;

// Compiled on first use: the schema is large and many test files never need it.
function blockKit(): BlockKitValidators | undefined {
  if (!schemasAvailable) return undefined;
  if (!validators) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const schema = withRawNumberCells(readSlackSchema('tightknit.slack-block-kit.schema.json'));
    ajv.addSchema(schema);
    validators = {
      ajv,
      blocks: ajv.getSchema(BLOCK_KIT_ID)!,
      modal: ajv.compile({ $ref: `${BLOCK_KIT_ID}#/$defs/modal_view` }),
      home: ajv.compile({ $ref: `${BLOCK_KIT_ID}#/$defs/home_view` }),
      byType: new Map(),
    };
    const defs = schema.$defs;
    if (isObject(defs)) for (const name of Object.keys(defs)) validators.byType.set(name, null);
  }
  return validators;
}

/**
 * The shared schema's table_cell knows raw_text and rich_text only; Slack (and @slack/types 3.2.0)
 * also take raw_number in a table, as in a data_table: the check accepts what Slack accepts.
 */
function withRawNumberCells(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = schema.$defs;
  if (!isObject(defs) || !isObject(defs.table_cell) || !Array.isArray(defs.table_cell.oneOf)) return schema;
  const rawNumber = {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'value'],
    properties: {
      type: { const: 'raw_number' },
      value: { type: 'number' },
      text: { type: 'string', minLength: 1 },
    },
  };
  const tableCell = { ...defs.table_cell, oneOf: [...defs.table_cell.oneOf, rawNumber] };
  return { ...schema, $defs: { ...defs, table_cell: tableCell } };
}

function blockValidator(kit: BlockKitValidators, type: unknown): ValidateFunction | undefined {
  const name = `${String(type)}_block`;
  if (typeof type !== 'string' || !kit.byType.has(name)) return undefined;
  let validate = kit.byType.get(name);
  if (!validate) {
    validate = kit.ajv.compile({ $ref: `${BLOCK_KIT_ID}#/$defs/${name}` });
    kit.byType.set(name, validate);
  }
  return validate;
}

/**
 * A block is a oneOf over every block type, so ajv reports each type's complaints. Where a block
 * names a known type, its errors are replaced by those of that type's own schema.
 */
function focusErrors(
  kit: BlockKitValidators,
  errors: ErrorObject[],
  blocks: unknown,
  at: string,
): ErrorObject[] {
  if (!Array.isArray(blocks)) return errors;
  const focused: ErrorObject[] = [];
  const replaced = new Set<number>();
  blocks.forEach((block, index) => {
    const validate = isObject(block) ? blockValidator(kit, block.type) : undefined;
    const prefix = `${at}/${index}`;
    const mine = errors.some((e) => e.instancePath === prefix || e.instancePath.startsWith(`${prefix}/`));
    if (!validate || !mine) return;
    replaced.add(index);
    if (validate(block)) return;
    for (const error of validate.errors ?? [])
      focused.push({ ...error, instancePath: `${prefix}${error.instancePath}` });
  });
  const blockIndex = (error: ErrorObject) => {
    const match = error.instancePath.slice(at.length).match(/^\/(\d+)/);
    return match ? Number(match[1]) : undefined;
  };
  const kept = errors.filter((error) => {
    if (!error.instancePath.startsWith(at)) return true;
    const index = blockIndex(error);
    return index === undefined || !replaced.has(index);
  });
  return [...kept, ...focused];
}

function run(validate: ValidateFunction, value: unknown): ErrorObject[] {
  if (validate(value)) return [];
  return [...(validate.errors ?? [])];
}

/** Schema errors for a `blocks` array (empty when valid, or when the schemas are absent). */
export function validateBlocks(blocks: unknown): ErrorObject[] {
  const kit = blockKit();
  if (!kit) return [];
  return focusErrors(kit, run(kit.blocks, blocks), blocks, '');
}

/** Schema errors for a modal view as sent to views.open/push/update. */
export function validateModal(view: unknown): ErrorObject[] {
  const kit = blockKit();
  if (!kit) return [];
  return focusErrors(kit, run(kit.modal, view), isObject(view) ? view.blocks : undefined, '/blocks');
}

/** Schema errors for a Home tab view as sent to views.publish. */
export function validateHome(view: unknown): ErrorObject[] {
  const kit = blockKit();
  if (!kit) return [];
  return focusErrors(kit, run(kit.home, view), isObject(view) ? view.blocks : undefined, '/blocks');
}

/** One line per error, for assertion messages: `/0/text/text must NOT have more than 3000 characters`. */
export function formatSchemaErrors(errors: ErrorObject[]): string {
  const lines = errors.map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}`);
  return [...new Set(lines)].join('\n');
}

export type LimitRule =
  | 'max-blocks'
  | 'text-budget'
  | 'message-text'
  | 'duplicate-block-id'
  | 'duplicate-action-id'
  | 'empty-text'
  | 'option-value-length'
  | 'table-rows'
  | 'table-cells'
  | 'table-column-settings'
  | 'table-cell-type'
  | 'empty-cell'
  | 'second-table';

/** The rules Slack itself enforces with `invalid_blocks` (the text budget is edgeops' own). */
export const SLACK_REFUSES: ReadonlySet<LimitRule> = new Set([
  'max-blocks',
  'duplicate-block-id',
  'duplicate-action-id',
  'empty-text',
  'option-value-length',
  'table-rows',
  'table-cells',
  'table-column-settings',
  'table-cell-type',
  'empty-cell',
]);

/** Rows of a table (its header row included), cells of a row, column settings: Slack's limits. */
export const TABLE_MAX_ROWS = 100;
export const TABLE_MAX_CELLS = 20;
export const TABLE_MAX_COLUMN_SETTINGS = 20;
const TABLE_CELL_TYPES = new Set(['raw_text', 'raw_number', 'rich_text']);
const isTable = (block: unknown) =>
  isObject(block) && (block.type === 'table' || block.type === 'data_table');

/**
 * Slack takes one table (or data_table) a message; a second is refused with its own error
 * (only_one_table_allowed), which no schema can say.
 */
export function secondTable(blocks: unknown): LimitViolation | undefined {
  const list = Array.isArray(blocks) ? blocks : [];
  const tables = list.flatMap((block, index) => (isTable(block) ? [index] : []));
  if (tables.length < 2) return undefined;
  return {
    rule: 'second-table',
    message: `blocks ${tables.join(', ')} are tables; a message takes one`,
    path: `/${tables[1]}`,
  };
}

/** A table's own rules, whatever the schema at hand says: counts, cell types, no empty cell. */
function tableViolations(block: Record<string, unknown>, index: number): LimitViolation[] {
  const out: LimitViolation[] = [];
  const rows = Array.isArray(block.rows) ? block.rows : [];
  if (block.type === 'table' && rows.length > TABLE_MAX_ROWS)
    out.push({
      rule: 'table-rows',
      message: `table ${index} has ${rows.length} rows; Slack takes ${TABLE_MAX_ROWS}`,
    });
  const settings = Array.isArray(block.column_settings) ? block.column_settings : [];
  if (settings.length > TABLE_MAX_COLUMN_SETTINGS)
    out.push({
      rule: 'table-column-settings',
      message: `table ${index} has ${settings.length} column settings; Slack takes ${TABLE_MAX_COLUMN_SETTINGS}`,
    });
  rows.forEach((row, r) => {
    const cells = Array.isArray(row) ? row : [];
    if (cells.length > TABLE_MAX_CELLS)
      out.push({
        rule: 'table-cells',
        message: `row ${r} of table ${index} has ${cells.length} cells; Slack takes ${TABLE_MAX_CELLS}`,
      });
    cells.forEach((cell, c) => {
      const at = `/${index}/rows/${r}/${c}`;
      if (!isObject(cell) || !TABLE_CELL_TYPES.has(String(cell.type)))
        out.push({
          rule: 'table-cell-type',
          message: `cell ${at} is not raw_text, raw_number or rich_text`,
          path: at,
        });
      else if (cell.type === 'raw_text' && (typeof cell.text !== 'string' || cell.text.trim() === ''))
        out.push({ rule: 'empty-cell', message: `raw_text cell ${at} is empty`, path: at });
      else if (cell.type === 'raw_number' && typeof cell.value !== 'number')
        out.push({
          rule: 'table-cell-type',
          message: `raw_number cell ${at} has no numeric value`,
          path: at,
        });
    });
  });
  return out;
}

export interface LimitViolation {
  rule: LimitRule;
  message: string;
  /** JSON-pointer-like location in the blocks array, when the rule concerns one place. */
  path?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Characters of every text object (plain_text, mrkdwn) and markdown block in `value`. */
export function blockTextLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + blockTextLength(item), 0);
  if (!isObject(value)) return 0;
  let total = 0;
  const isText = value.type === 'plain_text' || value.type === 'mrkdwn' || value.type === 'markdown';
  if (isText && typeof value.text === 'string') total += value.text.length;
  for (const [key, child] of Object.entries(value)) {
    if (isText && key === 'text') continue;
    total += blockTextLength(child);
  }
  return total;
}

function walk(value: unknown, at: string, visit: (node: Record<string, unknown>, at: string) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      walk(item, `${at}/${index}`, visit);
    });
  } else if (isObject(value)) {
    visit(value, at);
    for (const [key, child] of Object.entries(value)) walk(child, `${at}/${key}`, visit);
  }
}

function structuralViolations(blocks: unknown[]): LimitViolation[] {
  const violations: LimitViolation[] = [];
  const blockIds = new Map<string, number>();
  blocks.forEach((block, index) => {
    if (!isObject(block)) return;
    if (isTable(block)) violations.push(...tableViolations(block, index));
    if (typeof block.block_id === 'string') {
      const first = blockIds.get(block.block_id);
      if (first !== undefined) {
        violations.push({
          rule: 'duplicate-block-id',
          message: `block_id "${block.block_id}" is used by blocks ${first} and ${index}`,
          path: `/${index}/block_id`,
        });
      } else {
        blockIds.set(block.block_id, index);
      }
    }
    // Slack's rule ("Block elements": action_id) is uniqueness within the containing block, so
    // one action_id may repeat across blocks (a "Records" button on every zone line).
    const actionIds = new Set<string>();
    walk(block, `/${index}`, (node, at) => {
      if (typeof node.action_id !== 'string') return;
      if (actionIds.has(node.action_id)) {
        violations.push({
          rule: 'duplicate-action-id',
          message: `action_id "${node.action_id}" appears twice in block ${index}`,
          path: `${at}/action_id`,
        });
      }
      actionIds.add(node.action_id);
    });
    walk(block, `/${index}`, (node, at) => {
      // Slack refuses a text object with no text, and one of only spaces (it trims them).
      const isText = node.type === 'plain_text' || node.type === 'mrkdwn';
      if (isText && (typeof node.text !== 'string' || node.text.trim() === '')) {
        violations.push({
          rule: 'empty-text',
          message: `a ${String(node.type)} text object is empty`,
          path: `${at}/text`,
        });
      }
    });
    walk(block, `/${index}`, (node, at) => {
      // Options are the text+value objects without a type; buttons carry a type and longer values.
      if (node.type !== undefined || !isObject(node.text) || typeof node.value !== 'string') return;
      if (node.value.length > OPTION_VALUE_MAX) {
        violations.push({
          rule: 'option-value-length',
          message: `option value has ${node.value.length} characters; keep it to ${OPTION_VALUE_MAX}`,
          path: `${at}/value`,
        });
      }
    });
  });
  return violations;
}

/**
 * Payload-wide rules for a message: at most 50 blocks, the ~12,000-character text budget across
 * blocks (PRODUCT §6), the 40,000-character top-level text, unique block_ids, action_ids unique
 * within their block, option values of at most 75 characters.
 */
export function checkMessageLimits(blocks: unknown, text?: string): LimitViolation[] {
  const list = Array.isArray(blocks) ? blocks : [];
  const violations: LimitViolation[] = [];
  if (list.length > MESSAGE_MAX_BLOCKS) {
    violations.push({
      rule: 'max-blocks',
      message: `${list.length} blocks; a message takes at most ${MESSAGE_MAX_BLOCKS}`,
    });
  }
  const budget = blockTextLength(list);
  if (budget > MESSAGE_TEXT_BUDGET) {
    violations.push({
      rule: 'text-budget',
      message: `${budget} characters of text in blocks; keep a message under ${MESSAGE_TEXT_BUDGET}`,
    });
  }
  if (text !== undefined && text.length > MESSAGE_TEXT_MAX) {
    violations.push({
      rule: 'message-text',
      message: `top-level text has ${text.length} characters; Slack truncates after ${MESSAGE_TEXT_MAX}`,
    });
  }
  return [...violations, ...structuralViolations(list)];
}

/** Payload-wide rules for a modal or Home view: at most 100 blocks and the structural rules above. */
export function checkViewLimits(view: unknown): LimitViolation[] {
  const blocks = isObject(view) && Array.isArray(view.blocks) ? view.blocks : [];
  const violations: LimitViolation[] = [];
  if (blocks.length > MODAL_MAX_BLOCKS) {
    violations.push({
      rule: 'max-blocks',
      message: `${blocks.length} blocks; a view takes at most ${MODAL_MAX_BLOCKS}`,
    });
  }
  return [...violations, ...structuralViolations(blocks)];
}

export type { ErrorObject };
