/**
 * Every Slack limit edgeops relies on, in one place. Lengths are in characters; the code
 * measures them as UTF-16 code units, which is never fewer than Slack counts, so staying under
 * a limit here stays under it in Slack. Page names refer to docs.slack.dev.
 */

// --- Surfaces ("Block Kit" overview, "Blocks" reference) ---

/** Blocks in one message ("Blocks": messages accept up to 50 blocks). */
export const MESSAGE_MAX_BLOCKS = 50;
/** Blocks in one modal view ("Blocks": modals and Home tabs accept up to 100 blocks). */
export const MODAL_MAX_BLOCKS = 100;
/** Blocks in one Home tab view ("Blocks"). */
export const HOME_MAX_BLOCKS = 100;
/**
 * Characters of text across all blocks of one message. Slack states 12,000 for markdown blocks
 * ("Markdown block") and rejects or truncates very large block payloads; PRODUCT §6 keeps every
 * message under it, and longer output goes into a file.
 */
export const MESSAGE_TEXT_BUDGET = 12_000;
/** `block_id` length ("Blocks": every block type). */
export const BLOCK_ID_MAX = 255;
/** `action_id` length ("Block elements": every interactive element). */
export const ACTION_ID_MAX = 255;

// --- Message text ("chat.postMessage", "chat.postEphemeral", "chat.update") ---

/** Top-level `text` of a message; Slack truncates longer text ("chat.postMessage": 40,000 characters). */
export const MESSAGE_TEXT_MAX = 40_000;
/** What Slack recommends keeping the top-level `text` under ("chat.postMessage": best practice 4,000). */
export const MESSAGE_TEXT_RECOMMENDED_MAX = 4_000;
/** Top-level `text` of an ephemeral message, same limit as a posted one ("chat.postEphemeral"). */
export const EPHEMERAL_TEXT_MAX = MESSAGE_TEXT_MAX;

// --- Composition objects ("Composition objects") ---

/** Text object `text` when no block says otherwise ("Composition objects": text object, 3000). */
export const TEXT_OBJECT_MAX = 3_000;
/** Option `text` ("Composition objects": option object, 75). */
export const OPTION_TEXT_MAX = 75;
/**
 * Option `value`. Slack's reference page says 150; `@slack/types` documents 75, and
 * shared/reference/slack-schemas/README.md asks for 75, so 75 is what both accept.
 */
export const OPTION_VALUE_MAX = 75;
/** Option `description` ("Composition objects": option object, 75). */
export const OPTION_DESCRIPTION_MAX = 75;
/** Option group `label` ("Composition objects": option group object, 75). */
export const OPTION_GROUP_LABEL_MAX = 75;
/** Confirmation dialog `title` ("Composition objects": confirmation dialog object, 100). */
export const CONFIRM_TITLE_MAX = 100;
/** Confirmation dialog `text` ("Composition objects": confirmation dialog object, 300). */
export const CONFIRM_TEXT_MAX = 300;
/** Confirmation dialog `confirm` and `deny` button labels ("Composition objects", 30). */
export const CONFIRM_BUTTON_MAX = 30;

// --- Blocks ("Section block", "Header block", "Context block", "Actions block", "Input block") ---

/** Section `text` ("Section block": 3000). */
export const SECTION_TEXT_MAX = 3_000;
/** Section `fields` count ("Section block": at most 10 fields). */
export const SECTION_MAX_FIELDS = 10;
/** Each section field's text ("Section block": 2000 per field). */
export const SECTION_FIELD_TEXT_MAX = 2_000;
/** Header text, plain_text only ("Header block": 150). */
export const HEADER_TEXT_MAX = 150;
/** Context `elements` count ("Context block": at most 10). */
export const CONTEXT_MAX_ELEMENTS = 10;
/** Actions `elements` count ("Actions block": at most 25). */
export const ACTIONS_MAX_ELEMENTS = 25;
/** Input block `label` ("Input block": 2000). */
export const INPUT_LABEL_MAX = 2_000;
/** Input block `hint` ("Input block": 2000). */
export const INPUT_HINT_MAX = 2_000;
/** Markdown block text, also the cumulative cap across a payload's markdown blocks ("Markdown block"). */
export const MARKDOWN_BLOCK_MAX = 12_000;
/** Image `alt_text` ("Image block": 2000). */
export const IMAGE_ALT_TEXT_MAX = 2_000;
/**
 * A file's `alt_txt` ("files.getUploadURLExternal": description of image for screen-reader).
 * Slack states no length; the image block's alt text limit is kept.
 */
export const FILE_ALT_TEXT_MAX = IMAGE_ALT_TEXT_MAX;

// --- Elements ("Button element", "Select menu element", "Plain-text input element") ---

/** Button label ("Button element": 75). */
export const BUTTON_TEXT_MAX = 75;
/** Button `value`, carried back in the block_actions payload ("Button element": 2000). */
export const BUTTON_VALUE_MAX = 2_000;
/** Button `url` ("Button element": 3000). */
export const BUTTON_URL_MAX = 3_000;
/** Options in a static select, and option groups ("Select menu element": 100 each). */
export const STATIC_SELECT_MAX_OPTIONS = 100;
/** Options (or option groups) an external select's block_suggestion answer may hold ("Select menu element": 100). */
export const EXTERNAL_SELECT_MAX_OPTIONS = 100;
/** Options in an overflow menu ("Overflow menu element": 2 to 5). */
export const OVERFLOW_MAX_OPTIONS = 5;
/** Options in checkboxes and radio buttons ("Checkboxes element", "Radio button group element": 10). */
export const CHECKBOX_MAX_OPTIONS = 10;
/** Placeholder text of any input or select ("Plain-text input element": 150). */
export const PLACEHOLDER_MAX = 150;
/** `max_length` ceiling of a plain-text input ("Plain-text input element": 3000). */
export const PLAIN_TEXT_INPUT_MAX = 3_000;

// --- Views ("Modals", "View object") ---

/** Modal title ("View object": 24). */
export const MODAL_TITLE_MAX = 24;
/** Modal submit button label ("View object": 24). */
export const MODAL_SUBMIT_MAX = 24;
/** Modal close button label ("View object": 24). */
export const MODAL_CLOSE_MAX = 24;
/** `private_metadata` of a view ("View object": 3000). */
export const PRIVATE_METADATA_MAX = 3_000;
/** `callback_id` of a view ("View object": 255). */
export const CALLBACK_ID_MAX = 255;
/** `external_id` of a view ("View object": 255). */
export const EXTERNAL_ID_MAX = 255;
/** Views stacked in one modal, the first included ("Modals": views.push adds up to 3). */
export const MODAL_MAX_STACK = 3;

// --- Timing ("Handling user interaction", "Slash commands", "Modals") ---

/** Slack shows an error unless a command or interaction is acknowledged within 3 s ("Slash commands"). */
export const ACK_DEADLINE_MS = 3_000;
/** A `trigger_id` must be used to open a modal within 3 s of the interaction ("Modals"). */
export const TRIGGER_ID_TTL_MS = 3_000;
/** A `response_url` takes up to 5 responses ("Handling user interaction"). */
export const RESPONSE_URL_MAX_USES = 5;
/** A `response_url` works for 30 minutes ("Handling user interaction"). */
export const RESPONSE_URL_TTL_MS = 30 * 60_000;
/** Requests signed more than 5 minutes away from now are refused ("Verifying requests from Slack"). */
export const REQUEST_TIMESTAMP_TOLERANCE_S = 5 * 60;

// --- Slash commands ("Slash commands", "App manifest reference") ---

/** Slash command name including the slash ("App manifest reference": 32). */
export const SLASH_COMMAND_NAME_MAX = 32;
/** Slash command usage hint ("App manifest reference": 1000). */
export const SLASH_COMMAND_USAGE_HINT_MAX = 1_000;
