/**
 * Every relative link in the repository's Markdown resolves: to a file or folder of the
 * repository and, for `#anchor` links into Markdown, to a heading of that file as GitHub names it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '..');

/** Folders that hold no Markdown of the project's own: dependencies, build output, run data. */
const SKIPPED = new Set(['node_modules', 'dist', 'out', 'data', 'coverage']);

function markdownFiles(dir = repoRoot): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** The text outside fenced code blocks and inline code, where links and headings are. */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      lines.push('');
    } else lines.push(fence === undefined ? line.replace(/(`+)[^`]*?\1/g, '') : '');
  }
  return lines;
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lowercased, every character
 * but letters, marks, digits, connector punctuation, spaces and hyphens removed, spaces turned
 * into hyphens; a repeated anchor gets -1, -2, … in order.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Links written `[text](target)` or `[label]: target`, with the line they are on. */
function linksIn(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const [index, line] of proseLines(markdown).entries()) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: match[1]!, line: index + 1 });
    const reference = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (reference) links.push({ target: reference[1]!, line: index + 1 });
  }
  return links;
}

/** What is wrong with each relative link of `file`, whose text is `markdown`; empty when all resolve. */
function brokenLinks(file: string, markdown: string, root = repoRoot): string[] {
  const problems: string[] = [];
  const where = (line: number) => `${path.relative(root, file)}:${line}`;
  for (const { target, line } of linksIn(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const [rawPath = '', anchor] = target.split('#', 2);
    const decoded = decodeURIComponent(rawPath);
    const resolved =
      decoded === ''
        ? file
        : decoded.startsWith('/')
          ? path.join(root, decoded)
          : path.resolve(path.dirname(file), decoded);
    if (path.relative(root, resolved).startsWith('..')) {
      problems.push(`${where(line)}: ${target} points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where(line)}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
    const text = resolved === file ? markdown : readFileSync(resolved, 'utf8');
    if (!headingAnchors(text).has(decodeURIComponent(anchor).toLowerCase()))
      problems.push(`${where(line)}: ${target}: no heading with that anchor`);
  }
  return problems;
}

describe("GitHub's heading anchors", () => {
  it('lowercase the text, drop punctuation and code marks, and join the words with hyphens', () => {
    const anchors = headingAnchors(
      [
        '# edgeops',
        '## In a thread: `@edgeops` and "Investigate with edgeops"',
        '## Memory arenas: `MALLOC_ARENA_MAX`',
        '### Finding ids in Slack',
        '## Start-up',
        '## Start-up',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'edgeops',
      'in-a-thread-edgeops-and-investigate-with-edgeops',
      'memory-arenas-malloc_arena_max',
      'finding-ids-in-slack',
      'start-up',
      'start-up-1',
    ]);
  });
});

describe('relative links in Markdown', () => {
  const files = markdownFiles();

  it('finds the Markdown of the repository, and none of node_modules', () => {
    const names = files.map((file) => path.relative(repoRoot, file));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'src/sandbox/README.md']));
    expect(names.filter((name) => name.includes('node_modules'))).toEqual([]);
  });

  it('reports a missing file, a missing heading and a link out of the repository', () => {
    const readme = path.join(repoRoot, 'README.md');
    const text = [
      '# Title',
      'See [ok](docs/commands.md), [here](#title), [away](https://example.com/x.md) and `[code](nowhere.md)`.',
      'Broken: [file](docs/nowhere.md), [heading](docs/commands.md#no-such-heading), [up](../outside.md).',
      '```',
      '[in a fence](fenced.md)',
      '```',
      '[ref]: missing.md',
    ].join('\n');
    expect(brokenLinks(readme, text)).toEqual([
      'README.md:3: docs/nowhere.md: no such file',
      'README.md:3: docs/commands.md#no-such-heading: no heading with that anchor',
      'README.md:3: ../outside.md points outside the repository',
      'README.md:7: missing.md: no such file',
    ]);
  });

  it('resolve to a file of the repository and, with an anchor, to a heading of it', () => {
    const problems = files.flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8')));
    expect(problems).toEqual([]);
  });
});
