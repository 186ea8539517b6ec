import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

describe('npm run sandbox', () => {
  it('prints the URLs, key, database id, tokens and curl examples, serves them, and stops on Ctrl-C', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
      env: { ...process.env, SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (text: string) => {
          output += text;
          if (output.includes('Ctrl-C')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      const value = (name: string) => new RegExp(`${name}=(\\S+)`).exec(output)?.[1] ?? '';
      expect(output).toContain('db_01SANDBOX0000000000000000');
      expect(output.match(/curl /g)).toHaveLength(3);
      const keys = await fetch(`${value('PLATFORM_API_URL')}/apikey`, {
        headers: { AccessKey: value('PLATFORM_API_KEY') },
      });
      expect(keys.status).toBe(200);
      const query = await fetch(`${value('SERVICE_DATABASE_URL')}/v2/pipeline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${value('SERVICE_DATABASE_AUTH_TOKEN')}` },
        body: JSON.stringify({
          requests: [{ type: 'execute', stmt: { sql: 'SELECT 1' } }, { type: 'close' }],
        }),
      });
      expect(query.status).toBe(200);
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
