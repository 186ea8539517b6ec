import { describe, expect, it } from 'vitest';
import { PullZoneIdArg, ShieldZoneIdArg } from '../../src/operations/shared/ids.js';
import { readZoneChoice, readZoneId } from '../../src/reply/form.js';

const read = (value: unknown) => {
  const result = PullZoneIdArg.safeParse(value);
  return result.success ? result.data : result.error.issues[0]?.message;
};

describe('a platform id as people type it', () => {
  it('takes digits, with spaces around them, and a whole number from a form or a button', () => {
    expect(read('308006')).toBe(308006);
    expect(read(' 308006 ')).toBe(308006);
    expect(read(308006)).toBe(308006);
  });

  it.each(['1e3', '0x10', '0b1', '308006.0', '+5', '3_080', 'Infinity', '', ' '])(
    'refuses %j, which Number() would read as some id, saying to type digits',
    (typed) => {
      expect(read(typed)).toBe('the pull zone id must be a number in digits, e.g. 308006');
    },
  );

  it('refuses zero, a negative number and a fraction with what is wrong', () => {
    expect(read('0')).toBe('the pull zone id must be positive');
    expect(read('-5')).toBe('the pull zone id must be a number in digits, e.g. 308006');
    expect(read(2.5)).toBe('the pull zone id must be a whole number');
  });

  it('names the Shield zone in its own errors', () => {
    const result = ShieldZoneIdArg.safeParse('5e3');
    expect(result.success ? result.data : result.error.issues[0]?.message).toBe(
      'the Shield zone id must be a number in digits, e.g. 5101',
    );
  });
});

describe('an id as a form or a picker submits it', () => {
  it('takes up to 15 digits, as a command does, and nothing else', () => {
    expect(readZoneId('123456789012345')).toBe(123_456_789_012_345);
    expect(read('123456789012345')).toBe(123_456_789_012_345);
    expect(readZoneChoice('pullzone:1234567890123')).toEqual({ kind: 'pullzone', id: 1_234_567_890_123 });
    for (const typed of ['1234567890123456', '1e3', '0', '-1', ''])
      expect([readZoneId(typed), readZoneChoice(typed)]).toEqual([undefined, undefined]);
    expect(read('1234567890123456')).toBe('the pull zone id must be a number in digits, e.g. 308006');
  });
});
