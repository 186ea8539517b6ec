/**
 * The bot's secrets: registered as they become known (configuration at start-up, tokens and keys
 * as they are generated), and what takes their place wherever text leaves the bot.
 */

/** Registries' states made in this process so far: each state's generation. */
let generations = 0;

/** Values that must never be written anywhere; shared by the logger and the audit log. */
export class SecretRegistry {
  /**
   * This registry's state: a number no other registry or state of this process has had, changed
   * by each secret added. What was counted with one state's secrets is known to still hold.
   */
  private state = ++generations;
  /** Each form a secret is written in (as it is, JSON-escaped, mrkdwn-escaped), to the secret it is a form of. */
  private readonly forms = new Map<string, string>();
  /** The forms, longest first: a secret's escaped form is replaced before the raw form inside it. */
  private ordered: string[] = [];

  /** This registry's state now: the same number while no secret is added. */
  get generation(): number {
    return this.state;
  }

  add(...values: (string | undefined | null)[]): void {
    // Very short values would redact ordinary words; no real secret here is under 8 characters.
    for (const value of values) {
      if (!value || value.length < 8) continue;
      if (this.forms.get(value) !== value) this.state = ++generations;
      this.forms.set(value, value);
      // Log lines and stored parameters are JSON: a secret with a quote, a backslash or a control
      // character appears there escaped, and is redacted in that form too.
      // Slack text is escaped for mrkdwn before it is scrubbed: `&`, `<` and `>` appear as entities.
      const escapedForms = [
        JSON.stringify(value).slice(1, -1),
        value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'),
      ];
      for (const escaped of escapedForms)
        if (escaped !== value && !this.forms.has(escaped)) this.forms.set(escaped, value);
    }
    this.ordered = [...this.forms.keys()].sort((a, b) => b.length - a.length);
  }

  /**
   * Replaces every registered secret in `text` with a fingerprint of its last 4 characters,
   * except those in `keep` (a secret delivered to the person who asked for it).
   */
  redact(text: string, keep: readonly string[] = []): string {
    let out = text;
    for (const form of this.ordered) {
      const secret = this.forms.get(form) ?? form;
      if (keep.includes(secret)) continue;
      if (out.includes(form)) out = out.split(form).join(maskedForm(secret));
    }
    return out.includes(CUT) ? this.redactCuts(out, keep) : out;
  }

  /**
   * A value cut for display where it could not be kept longer (a summary's counter keeps 64 or
   * 256 bytes of a value) may end in a secret's start, or go on after its "…" with a secret's
   * end: no whole form to find. The part of a form of CUT_PART characters or more that touches a
   * "…" is masked as the whole secret would be.
   */
  private redactCuts(text: string, keep: readonly string[]): string {
    let out = text;
    for (let at = out.indexOf(CUT); at >= 0; at = out.indexOf(CUT, at + 1)) {
      // The "…" of a mask already written is not a cut.
      if (out.startsWith(MASK_HEAD, at - MASK_HEAD.length)) continue;
      for (const form of this.ordered) {
        const secret = this.forms.get(form) ?? form;
        if (keep.includes(secret)) continue;
        const before = cutPart(out.slice(Math.max(0, at - form.length + 1), at), form, 'start');
        const after = cutPart(out.slice(at + 1, at + form.length), form, 'end');
        if (before === 0 && after === 0) continue;
        const masked = maskedForm(secret);
        const head = `${out.slice(0, at - before)}${before ? masked : ''}${CUT}${after ? masked : ''}`;
        out = `${head}${out.slice(at + 1 + after)}`;
        // On after what was written: its masks hold a "…" of their own.
        at = head.length - 1;
        break;
      }
    }
    return out;
  }

  /**
   * Each form of each secret but those in `keep`, longest first, with what `redact` writes in its
   * place: for what is scrubbed as bytes rather than as a string (files).
   */
  maskedForms(keep: readonly string[] = []): { form: string; secret: string; masked: string }[] {
    return this.ordered.flatMap((form) => {
      const secret = this.forms.get(form) ?? form;
      return keep.includes(secret) ? [] : [{ form, secret, masked: maskedForm(secret) }];
    });
  }

  /** The length of the longest form: text cut for display keeps this much more, to be redacted whole. */
  longest(): number {
    return this.ordered[0]?.length ?? 0;
  }

  /** Every form of every secret, for tests that look for them anywhere. */
  values(): string[] {
    return [...this.forms.keys()];
  }
}

/** What ends a value cut for display. */
const CUT = '…';
/** The fewest characters of a secret, at a cut, that are masked: fewer would mask ordinary words. */
const CUT_PART = 4;

/**
 * How many characters of `side` are a part of `form` at a cut: with `start`, the longest end of
 * `side` that begins `form`; with `end`, the longest start of `side` that ends `form`. 0 when
 * shorter than CUT_PART.
 */
function cutPart(side: string, form: string, part: 'start' | 'end'): number {
  for (let k = Math.min(side.length, form.length - 1); k >= CUT_PART; k--) {
    const matches =
      part === 'start' ? side.endsWith(form.slice(0, k)) : side.startsWith(form.slice(form.length - k));
    if (matches) return k;
  }
  return 0;
}

/** What takes a secret's place in text that passed the registry. */
const MASK_HEAD = '[redacted ';
const maskedForm = (secret: string): string => `${MASK_HEAD}${CUT}${redactedTail(secret)}]`;

/** A secret's last 4 characters, or, where those would need escaping in JSON, its last 4 letters and digits. */
function redactedTail(secret: string): string {
  const tail = secret.slice(-4);
  const needsEscaping = [...tail].some((c) => c === '"' || c === '\\' || c < ' ');
  return needsEscaping ? secret.replace(/[^A-Za-z0-9]/g, '').slice(-4) : tail;
}

/** Masks a secret for display: the first and last 4 characters (`abcd…wxyz`), or `…wxyz` when short. */
export function maskSecret(value: string | null | undefined): string {
  if (!value) return '(none)';
  if (value.length <= 12) return `…${value.slice(-4)}`;
  return `${value.slice(0, 4)}…${value.slice(-4)}`;
}

/** The fingerprint shown on cards and in audit rows: the last 4 characters only. */
export function fingerprint(value: string): string {
  return `…${value.slice(-4)}`;
}
