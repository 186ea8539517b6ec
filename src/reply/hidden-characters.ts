/**
 * Characters that change how text looks without being seen: C0 and C1 controls (an ANSI escape
 * can blank or recolour the rest of a terminal line) and the Unicode format characters that
 * reorder or hide text (U+202E turns the rest of a line around, the "Trojan Source" pattern).
 * Text a person gives the bot is shown on cards, in messages and in the audit log, so what an
 * approver reads must be what runs: every parse refuses these, naming the one found and where.
 * Tab and line breaks (LF, and CR only as part of CRLF) are ordinary text.
 */

const CONTROL_NAMES = [
  'NULL',
  'START OF HEADING',
  'START OF TEXT',
  'END OF TEXT',
  'END OF TRANSMISSION',
  'ENQUIRY',
  'ACKNOWLEDGE',
  'ALERT',
  'BACKSPACE',
  'CHARACTER TABULATION',
  'LINE FEED',
  'LINE TABULATION',
  'FORM FEED',
  'CARRIAGE RETURN',
  'SHIFT OUT',
  'SHIFT IN',
  'DATA LINK ESCAPE',
  'DEVICE CONTROL ONE',
  'DEVICE CONTROL TWO',
  'DEVICE CONTROL THREE',
  'DEVICE CONTROL FOUR',
  'NEGATIVE ACKNOWLEDGE',
  'SYNCHRONOUS IDLE',
  'END OF TRANSMISSION BLOCK',
  'CANCEL',
  'END OF MEDIUM',
  'SUBSTITUTE',
  'ESCAPE',
  'FILE SEPARATOR',
  'GROUP SEPARATOR',
  'RECORD SEPARATOR',
  'UNIT SEPARATOR',
] as const;

const C1_NAMES = [
  'PADDING CHARACTER',
  'HIGH OCTET PRESET',
  'BREAK PERMITTED HERE',
  'NO BREAK HERE',
  'INDEX',
  'NEXT LINE',
  'START OF SELECTED AREA',
  'END OF SELECTED AREA',
  'CHARACTER TABULATION SET',
  'CHARACTER TABULATION WITH JUSTIFICATION',
  'LINE TABULATION SET',
  'PARTIAL LINE FORWARD',
  'PARTIAL LINE BACKWARD',
  'REVERSE LINE FEED',
  'SINGLE SHIFT TWO',
  'SINGLE SHIFT THREE',
  'DEVICE CONTROL STRING',
  'PRIVATE USE ONE',
  'PRIVATE USE TWO',
  'SET TRANSMIT STATE',
  'CANCEL CHARACTER',
  'MESSAGE WAITING',
  'START OF GUARDED AREA',
  'END OF GUARDED AREA',
  'START OF STRING',
  'SINGLE GRAPHIC CHARACTER INTRODUCER',
  'SINGLE CHARACTER INTRODUCER',
  'CONTROL SEQUENCE INTRODUCER',
  'STRING TERMINATOR',
  'OPERATING SYSTEM COMMAND',
  'PRIVACY MESSAGE',
  'APPLICATION PROGRAM COMMAND',
] as const;

const FORMAT_NAMES: Readonly<Record<number, string>> = {
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  65279: 'ZERO WIDTH NO-BREAK SPACE',
};

// Every C0 control but tab and line feed, DEL, C1, and the format characters above.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export interface HiddenCharacter {
  codePoint: number;
  /** `U+202E RIGHT-TO-LEFT OVERRIDE` */
  label: string;
  /** 1-based, in characters (code points) of the text. */
  position: number;
}

/** The Unicode name of a character this module refuses. */
function nameOf(codePoint: number): string {
  if (codePoint < 0x20) return CONTROL_NAMES[codePoint]!;
  if (codePoint === 0x7f) return 'DELETE';
  if (codePoint < 0xa0) return C1_NAMES[codePoint - 0x80]!;
  return FORMAT_NAMES[codePoint]!;
}

/** The first control or invisible format character of `text`, or undefined when it has none. */
export function findHiddenCharacter(text: string): HiddenCharacter | undefined {
  HIDDEN.lastIndex = 0;
  for (let match = HIDDEN.exec(text); match !== null; match = HIDDEN.exec(text)) {
    // A CR that ends a line before its LF is a Windows line break, not a carriage return.
    if (match[0] === '\r' && text[match.index + 1] === '\n') continue;
    const codePoint = match[0].charCodeAt(0);
    const hex = codePoint.toString(16).toUpperCase().padStart(4, '0');
    return {
      codePoint,
      label: `U+${hex} ${nameOf(codePoint)}`,
      position: Array.from(text.slice(0, match.index)).length + 1,
    };
  }
  return undefined;
}

/**
 * Why `text` is refused, or undefined when it may be used. `what` names the text as the person
 * knows it and starts the message as given: "the statement" in a command's error, "The reason"
 * under a form's field.
 */
export function hiddenCharacterError(text: string, what: string): string | undefined {
  const found = findHiddenCharacter(text);
  if (!found) return undefined;
  const kind = found.codePoint < 0xa0 ? 'a control character' : 'an invisible formatting character';
  return `${what} contains ${found.label} at character ${found.position}, ${kind} that can make text look different from what it does: delete it (retype that part rather than pasting it) and send again.`;
}

/**
 * `text` with each hidden character written as its code (`<U+202E>`), for keeping what someone
 * sent where it is shown later (an audit row of a refusal) without it acting there.
 */
export function revealHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, (character, offset: number) =>
    character === '\r' && text[offset + 1] === '\n'
      ? character
      : `<U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}
