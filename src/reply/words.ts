/**
 * How numbers are said to people, in one place: counts with their noun ("1 record",
 * "2 records", never "record(s)") and sizes in the unit a person would use (KB below 1 MB).
 */

/** A whole number with thousands separators: 1,000,000. */
export const number = (n: number): string => n.toLocaleString('en-US');

/** A count and its noun, singular for exactly one: `counted(1, 'row')` is "1 row". */
export const counted = (n: number, word: string, plural = `${word}s`): string =>
  `${number(n)} ${n === 1 ? word : plural}`;

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;

/** One decimal, dropped when it is zero: 1.5, 2, 12.3. */
const oneDecimal = (value: number) => {
  const text = value.toFixed(1);
  return text.endsWith('.0') ? text.slice(0, -2) : text;
};

/** A size in bytes, KB, MB or GB (powers of 1024), whichever keeps the number below 1,024. */
export function byteSize(bytes: number): string {
  if (bytes < KB) return counted(bytes, 'byte');
  if (bytes < MB) return `${oneDecimal(bytes / KB)} KB`;
  if (bytes < GB) return `${oneDecimal(bytes / MB)} MB`;
  return `${oneDecimal(bytes / GB)} GB`;
}
