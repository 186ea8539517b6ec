/** `/edge help` and the words around commands: group words show their help, typos get a suggestion. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  // Everything is allowed here, so that group help lists every command of a group.
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun() });
});
afterAll(async () => {
  await bed?.close();
});

const privateAnswer = async (text: string) => wordsOf(onlyAnswer(await bed.run(text)));

describe('group words and suggestions', () => {
  it.each([
    ['shield', ['/edge shield export', '/edge shield enums', '/edge shield bot-detection'], '/edge dns'],
    ['db', ['/edge db query', '/edge db exec', '/edge db tokens create'], '/edge logs'],
    ['db tokens', ['/edge db tokens create', '/edge db tokens invalidate'], '/edge db query'],
    ['pullzone', ['/edge pullzone reset-key'], '/edge dns'],
  ])('/edge %s shows that group’s help', async (group, listed, notListed) => {
    const answer = await privateAnswer(group);
    for (const usage of listed) expect(answer).toContain(usage);
    expect(answer).not.toContain(notListed);
    expect(answer).not.toContain('is not a command');
  });

  it.each([
    ['db tokens creat', 'did you mean \\"db tokens create\\"?'],
    ['help reset-ky', 'did you mean /edge help reset-key?'],
  ])('/edge %s gets a suggestion', async (command, suggestion) => {
    expect(await privateAnswer(command)).toContain(suggestion);
  });

  it('/edge help reset-key explains the command that has that word', async () => {
    expect(await privateAnswer('help reset-key')).toContain('/edge pullzone reset-key');
  });
});
