/** "Did you mean …?" for policy files: the closest known name, if one is close enough to be a typo. */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  // Long inputs are not typos of short names, and comparing them would cost quadratic time.
  if (input.length === 0 || input.length > 64) return undefined;
  const limit = Math.max(1, Math.min(3, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Candidates close to `input`, closest first, at most `limit`: within a few edits of it (a typo),
 * or ending like it from the first dot on (`cdn.example.com` for `www.example.com`).
 */
export function closeNames(input: string, candidates: readonly string[], limit = 5): string[] {
  const typed = input.toLowerCase();
  if (typed.length === 0 || typed.length > 253) return [];
  const within = Math.max(2, Math.floor(typed.length / 4));
  const tail = typed.includes('.') ? typed.slice(typed.indexOf('.')) : undefined;
  const ranked: { name: string; distance: number }[] = [];
  for (const name of new Set(candidates)) {
    const lower = name.toLowerCase();
    // Long names are not typos of short ones, and comparing them would cost quadratic time.
    const distance = Math.abs(lower.length - typed.length) > within ? within + 1 : editDistance(typed, lower);
    const sameTail = tail?.includes('.', 1) === true && lower.endsWith(tail);
    if (distance <= within || sameTail) ranked.push({ name, distance });
  }
  return ranked
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      row.push(value);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
