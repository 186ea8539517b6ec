/**
 * A Home drawn for its tab, outside any request: the viewer it is drawn for, and a failure drawn
 * as `/edge home` would answer it, with a correlation id the log carries too.
 */
import { describe, expect, it } from 'vitest';
import type { HomeViewer } from '../../src/operations/engine/types.js';
import { homeDrawer } from '../../src/operations/home/draw.js';
import { operations } from '../../src/operations/registry.js';
import type { Authorizer } from '../../src/policy/authorizer.js';
import { ephemeral } from '../../src/reply/model.js';
import { memoryLogger } from '../state/temp-db.js';

/** Allows whoami alone, everywhere. */
const authorizer = {
  allowedAmong: async () => new Set(['whoami']),
  ruledAmong: () => new Set<string>(),
} as unknown as Authorizer;

const links = { permalink: async () => 'https://example.slack.com/archives/C0APPROVALS/p1' };

describe('a Home drawn for its tab', () => {
  it('is drawn for its person in no channel, with what they may run and the publisher’s links', async () => {
    let seen: HomeViewer | undefined;
    const draw = homeDrawer({
      show: async (viewer) => {
        seen = viewer;
        return ephemeral('Your edgeops Home', []);
      },
      operations,
      authorizer,
      logger: memoryLogger(),
    });
    const home = await draw('U0LEAD', links);
    expect(home.text).toBe('Your edgeops Home');
    expect(seen?.userId).toBe('U0LEAD');
    expect(seen?.channelId).toBe('');
    expect([...(await seen!.access.allowed())]).toEqual(['whoami']);
    expect(await seen!.permalink({ channelId: 'C0APPROVALS', ts: '1.0' })).toContain('/archives/');
  });

  it('draws a failure as the answer to /edge home would be, with the correlation id the log has', async () => {
    const logger = memoryLogger();
    const draw = homeDrawer({
      show: async () => {
        throw new Error('the state database is gone');
      },
      operations,
      authorizer,
      logger,
    });
    const home = await draw('U0LEAD', links);
    const id = /c-[0-9a-f]{10}/.exec(home.text)?.[0];
    expect(id).toBeDefined();
    expect(logger.lines.join('\n')).toContain(id!);
    expect(logger.lines.join('\n')).toContain('the state database is gone');
  });
});
