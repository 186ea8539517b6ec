/**
 * Terminal text styles. Colour is used only on a TTY and when NO_COLOR is unset
 * (https://no-color.org); otherwise every style returns its text unchanged.
 */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  underline(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

const plain = (text: string) => text;

export function createStyle(enabled: boolean): Style {
  if (!enabled)
    return {
      enabled,
      bold: plain,
      dim: plain,
      underline: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
    };
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    underline: sgr(4, 24),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/** Whether to colour: the output is a terminal and the user has not asked for no colour. */
export function wantsColour(output: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return output.isTTY === true && !env.NO_COLOR;
}

/**
 * Platform and attacker text must not drive the terminal: control characters (escape
 * sequences, carriage returns) and bidirectional overrides are shown as a replacement mark.
 */
export function safeForTerminal(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}
