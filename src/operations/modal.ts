/**
 * A form, independent of Slack or the console: the Slack adapter renders it as a modal,
 * the console asks field by field. Submitted values come back as strings or string lists.
 */
export interface ModalOption {
  value: string;
  label: string;
}

export type ModalField =
  | {
      id: string;
      label: string;
      kind: 'text';
      initial?: string;
      optional?: boolean;
      hint?: string;
      multiline?: boolean;
    }
  | {
      id: string;
      label: string;
      kind: 'number';
      initial?: number;
      optional?: boolean;
      hint?: string;
      min?: number;
      max?: number;
    }
  | {
      id: string;
      label: string;
      kind: 'select';
      options: ModalOption[];
      initial?: string;
      optional?: boolean;
      hint?: string;
    }
  | {
      id: string;
      label: string;
      kind: 'multiselect';
      options: ModalOption[];
      initial?: string[];
      optional?: boolean;
      hint?: string;
    }
  | {
      id: string;
      label: string;
      kind: 'checkboxes';
      options: ModalOption[];
      initial?: string[];
      optional?: boolean;
      hint?: string;
    }
  | { id: string; label: string; kind: 'datetime'; initial?: number; optional?: boolean; hint?: string };

export interface ModalSpec {
  /** Routes the submission back: `${operationKey}:${name}`. */
  callbackId: string;
  title: string;
  submit: string;
  /** Opaque state carried through the form (no secrets): e.g. a zone id or request id. */
  privateMetadata: string;
  intro?: string;
  fields: ModalField[];
}

/** What the user entered: text and select fields as strings, multi-value fields as lists. */
export type ModalValues = Record<string, string | string[] | undefined>;

export type ModalResult =
  /** Errors shown on the fields at fault; the form stays open. */
  { kind: 'errors'; errors: Record<string, string> } | { kind: 'close' };
