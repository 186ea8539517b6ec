import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { scrubbed } from '../../src/secrets/scrub.js';

const SECRET = 'sk-live-0123456789abcdef';

describe('scrubbed', () => {
  const secrets = new SecretRegistry();
  secrets.add(SECRET);

  it('replaces a secret wherever it sits in a payload, leaving the original as it was', () => {
    const payload = {
      text: `key ${SECRET}`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'nothing here' } },
        {
          type: 'context',
          elements: [
            { type: 'mrkdwn', text: `*${SECRET}*` },
            { type: 'mrkdwn', text: 'x' },
          ],
        },
      ],
      count: 3,
      flag: true,
      none: null,
    };
    const before = structuredClone(payload);
    const out = scrubbed(secrets, payload);
    const json = JSON.stringify(out);
    expect(json).not.toContain(SECRET);
    expect(out.text).toBe('key [redacted …cdef]');
    expect(out.blocks[1]?.elements?.[0]?.text).toBe('*[redacted …cdef]*');
    expect(out).toMatchObject({ count: 3, flag: true, none: null });
    expect(out.blocks[1]?.elements?.[1]?.text).toBe('x');
    expect(payload).toEqual(before);
  });

  it('sends an object that is not a plain one as its own fields, never through its toJSON', () => {
    const out = scrubbed(secrets, { link: new URL(`https://hooks.example/?token=${SECRET}`), note: 'x' });
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out.note).toBe('x');
  });

  it('returns what holds no secret as it was, and copies only the branches that changed', () => {
    const clean = { text: 'hello', blocks: [{ type: 'divider' }, { type: 'section', text: { text: 'a' } }] };
    expect(scrubbed(secrets, clean)).toBe(clean);
    const mixed = { text: SECRET, blocks: clean.blocks };
    const out = scrubbed(secrets, mixed);
    expect(out).not.toBe(mixed);
    expect(out.blocks).toBe(clean.blocks);
  });

  it('keeps the secrets a reply exists to deliver, and scrubs every other', () => {
    const other = 'tok-other-9876543210zyxw';
    const registry = new SecretRegistry();
    registry.add(SECRET, other);
    const out = scrubbed(registry, { text: `${SECRET} and ${other}` }, [SECRET]);
    expect(out.text).toBe(`${SECRET} and [redacted …zyxw]`);
    expect(scrubbed(registry, `${SECRET} and ${other}`)).toBe('[redacted …cdef] and [redacted …zyxw]');
  });
});
