import { createRequire } from 'node:module';
import * as Bolt from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { loadBoltReceiver } from '../../src/slack/receivers/bolt-receiver.js';

const load = createRequire(import.meta.url);

describe("the receiving thread's Bolt modules", () => {
  it('loads only the receiver’s modules from the installed Bolt, which are the ones Bolt exports', () => {
    const modules = loadBoltReceiver(load);
    expect(modules.loaded).toBe('parts');
    expect(modules.HTTPReceiver).toBe(Bolt.HTTPReceiver);
    expect(modules.AuthorizationError).toBe(Bolt.AuthorizationError);
    expect(modules.ErrorCode).toBe(Bolt.ErrorCode);
  });

  it('loads all of Bolt when its files are laid out otherwise', () => {
    const asked: string[] = [];
    const modules = loadBoltReceiver((id) => {
      asked.push(id);
      if (id.includes('/dist/'))
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return load(id);
    });
    expect(modules.loaded).toBe('whole');
    expect(asked.at(-1)).toBe('@slack/bolt');
    expect(modules.HTTPReceiver).toBe(Bolt.HTTPReceiver);
    expect(modules.ErrorCode.AuthorizationError).toBe(Bolt.ErrorCode.AuthorizationError);
  });

  it('does not hide a failure inside Bolt’s receiver behind the fallback', () => {
    const broken = () =>
      loadBoltReceiver((id) => {
        if (id.includes('/dist/')) throw new SyntaxError('Unexpected token in HTTPReceiver.js');
        return load(id);
      });
    expect(broken).toThrow('Unexpected token in HTTPReceiver.js');
  });
});
