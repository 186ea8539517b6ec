import { describe, expect, it } from 'vitest';
import { MESSAGE_BUDGET } from '../../src/reply/budget.js';
import * as slack from '../../src/slack/limits.js';

describe('the product’s message budget', () => {
  it.each([
    ['blocks', MESSAGE_BUDGET.blocks, slack.MESSAGE_MAX_BLOCKS],
    ['textChars', MESSAGE_BUDGET.textChars, slack.MESSAGE_TEXT_BUDGET],
    ['sectionChars', MESSAGE_BUDGET.sectionChars, slack.SECTION_TEXT_MAX],
    ['fieldChars', MESSAGE_BUDGET.fieldChars, slack.SECTION_FIELD_TEXT_MAX],
    ['fieldsPerBlock', MESSAGE_BUDGET.fieldsPerBlock, slack.SECTION_MAX_FIELDS],
    ['headerChars', MESSAGE_BUDGET.headerChars, slack.HEADER_TEXT_MAX],
    ['contextElements', MESSAGE_BUDGET.contextElements, slack.CONTEXT_MAX_ELEMENTS],
    ['buttonsPerRow', MESSAGE_BUDGET.buttonsPerRow, slack.ACTIONS_MAX_ELEMENTS],
    ['buttonTextChars', MESSAGE_BUDGET.buttonTextChars, slack.BUTTON_TEXT_MAX],
    ['buttonValueChars', MESSAGE_BUDGET.buttonValueChars, slack.BUTTON_VALUE_MAX],
    ['confirmTitleChars', MESSAGE_BUDGET.confirmTitleChars, slack.CONFIRM_TITLE_MAX],
    ['confirmTextChars', MESSAGE_BUDGET.confirmTextChars, slack.CONFIRM_TEXT_MAX],
    ['confirmButtonChars', MESSAGE_BUDGET.confirmButtonChars, slack.CONFIRM_BUTTON_MAX],
    ['menuOptions', MESSAGE_BUDGET.menuOptions, slack.STATIC_SELECT_MAX_OPTIONS],
    [
      'optionTextChars',
      MESSAGE_BUDGET.optionTextChars,
      Math.min(slack.OPTION_TEXT_MAX, slack.OPTION_GROUP_LABEL_MAX),
    ],
    ['optionValueChars', MESSAGE_BUDGET.optionValueChars, slack.OPTION_VALUE_MAX],
    ['menuPlaceholderChars', MESSAGE_BUDGET.menuPlaceholderChars, slack.PLACEHOLDER_MAX],
    ['notificationChars', MESSAGE_BUDGET.notificationChars, slack.MESSAGE_TEXT_RECOMMENDED_MAX],
  ])('%s (%i) fits within Slack’s limit (%i)', (_name, budget, limit) => {
    expect(budget).toBeLessThanOrEqual(limit);
  });

  it('names every figure of the budget in the check above', () => {
    expect(Object.keys(MESSAGE_BUDGET)).toHaveLength(18);
  });
});
