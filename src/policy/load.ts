/**
 * Reads a policy file's text. Every failure is one line that names the file, the YAML path of
 * the fault and its line, so an operator can fix it without reading code:
 * `edgeops.policy.yml: grants[1].ops[2]: "dns.lsit" is not an operation (did you mean dns.list?) (line 9, column 24)`.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { type Policy, policyFileSchema } from './schema.js';
import { closestName } from './suggest.js';

export type PolicyParseResult = { ok: true; policy: Policy } | { ok: false; error: string };

type PathKey = PropertyKey;

/** `grants[1].ops[2]`, `roles["on call"]` */
export function formatYamlPath(path: readonly PathKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_][\w-]*$/.test(key)) text += text ? `.${key}` : key;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': ['owner', 'channels', 'roles', 'grants', 'approvals'],
  grant: ['ops', 'roles', 'channels'],
  approvals: ['channel', 'ttl', 'rules'],
  rule: ['ops', 'approvers', 'required', 'confirm', 'escalate_to'],
};

function knownKeysAt(path: readonly PathKey[]): readonly string[] {
  if (path.length === 0) return KNOWN_KEYS['']!;
  if (path[0] === 'grants') return KNOWN_KEYS.grant!;
  if (path[0] === 'approvals') return path.length === 1 ? KNOWN_KEYS.approvals! : KNOWN_KEYS.rule!;
  return [];
}

function describeIssue(issue: z.core.$ZodIssue): { path: PathKey[]; message: string; aboutKey: boolean } {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const known = knownKeysAt(issue.path);
    const guess = closestName(key, known);
    const hint = guess ? `did you mean ${guess}?` : `expected one of ${known.join(', ')}`;
    return {
      path: [...issue.path, key],
      message: `unknown setting${known.length > 0 ? ` (${hint})` : ''}`,
      aboutKey: true,
    };
  }
  if (issue.code === 'invalid_key') {
    return { path: issue.path, message: issue.issues[0]?.message ?? issue.message, aboutKey: true };
  }
  return { path: issue.path, message: issue.message, aboutKey: false };
}

/**
 * The YAML node an issue is about, for its line and column: the value at `path`, or the key when
 * the key itself is wrong or has no value, or the nearest enclosing collection when it is missing.
 */
function nodeAt(root: Node | null, path: readonly PathKey[], pointAtKey: boolean): Node | undefined {
  let current: Node | undefined = root ?? undefined;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const last = i === path.length - 1;
    if (isMap(current)) {
      const pair = current.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key));
      if (!pair) return current;
      const keyNode = isNode(pair.key) ? pair.key : current;
      if (last && pointAtKey) return keyNode;
      if (!isNode(pair.value)) return keyNode;
      current = pair.value;
    } else if (isSeq(current) && typeof key === 'number') {
      const item = current.items[key];
      if (!isNode(item)) return current;
      current = item;
    } else {
      return current;
    }
  }
  return current;
}

export function parsePolicy(yamlText: string, sourceName: string): PolicyParseResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxError = document.errors[0];
  if (syntaxError) {
    const position = syntaxError.linePos?.[0] ?? lineCounter.linePos(syntaxError.pos[0]);
    const message = syntaxError.message.replace(/ at line \d+, column \d+[\s\S]*$/, '');
    return {
      ok: false,
      error: `${sourceName}: line ${position.line}, column ${position.col}: ${message}`,
    };
  }

  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Alias bombs and similar: the library refuses them by throwing.
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `${sourceName}: ${reason}` };
  }
  if (data === null || data === undefined) {
    return {
      ok: false,
      error: `${sourceName}: the file is empty; define roles and grants (or remove the file to use the built-in policy)`,
    };
  }

  const parsed = policyFileSchema.safeParse(data);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    if (!first) return { ok: false, error: `${sourceName}: the policy is not valid` };
    const { path, message, aboutKey } = describeIssue(first);
    const node = nodeAt(document.contents, path, aboutKey);
    const start = node?.range?.[0];
    const where = start === undefined ? '' : formatPosition(lineCounter.linePos(start));
    const prefix = path.length > 0 ? `${formatYamlPath(path)}: ` : '';
    return { ok: false, error: `${sourceName}: ${prefix}${message}${where}` };
  }
  return { ok: true, policy: { ...parsed.data, origin: 'file', source: sourceName } };
}

function formatPosition(position: { line: number; col: number }): string {
  return ` (line ${position.line}, column ${position.col})`;
}
