/**
 * What one message may hold, whatever shows it: the product's own budget (PRODUCT §6). Each
 * figure is at or under the tightest limit of an adapter (Slack's Block Kit, in slack/limits.ts,
 * checked by a test), so a reply fitted to it is shown whole everywhere; the console shows the
 * same cut as Slack. Lengths count UTF-16 code units, never fewer than Slack counts.
 */
export const MESSAGE_BUDGET = {
  /** Blocks in a message. */
  blocks: 50,
  /** Characters of text across the whole message; more goes to a file. */
  textChars: 12_000,
  /** A block of text (a section), fences of code included. */
  sectionChars: 3_000,
  /** One field of a fields block, label included. */
  fieldChars: 2_000,
  fieldsPerBlock: 10,
  /** A header line. */
  headerChars: 150,
  /** Lines of a context block. */
  contextElements: 10,
  /** Buttons in a row. */
  buttonsPerRow: 25,
  buttonTextChars: 75,
  /** A button's value, carried back when it is clicked. */
  buttonValueChars: 2_000,
  confirmTitleChars: 100,
  confirmTextChars: 300,
  confirmButtonChars: 30,
  /** Options of a menu, across its groups. */
  menuOptions: 100,
  /** A menu option's text, and a group's label. */
  optionTextChars: 75,
  /** A menu option's value: its button's action id and value, with a space between. */
  optionValueChars: 75,
  menuPlaceholderChars: 150,
  /** The notification text (what a phone shows). */
  notificationChars: 4_000,
} as const;
