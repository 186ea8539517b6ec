/**
 * The secret-leak guard: every payload the fake Slack received and every log line is searched
 * for secrets. Account-level secrets (the platform API key, Slack credentials, database
 * tokens, the platform's own API keys) may appear nowhere; secrets the bot generates for a
 * person (new keys, new tokens) may appear only in a DM (a `D…` channel) to that person.
 */
import type { FakeSlack } from './fake-slack.js';

export interface Leak {
  secret: string;
  where: string;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? '');
}

export function findLeaks(
  fake: FakeSlack,
  logs: readonly string[],
  secrets: { never: readonly string[]; dmOnly?: readonly string[] },
  /** More places no secret may be: audit rows, files written by the console. */
  elsewhere: readonly { where: string; text: string }[] = [],
): Leak[] {
  const leaks: Leak[] = [];
  const masked = (secret: string) => `…${secret.slice(-4)} (${secret.length} chars)`;
  const check = (text: string, where: string, isDm: boolean) => {
    for (const secret of secrets.never)
      if (secret && text.includes(secret)) leaks.push({ secret: masked(secret), where });
    if (!isDm)
      for (const secret of secrets.dmOnly ?? [])
        if (secret && text.includes(secret)) leaks.push({ secret: masked(secret), where });
  };
  for (const call of fake.calls) {
    const { token: _token, ...args } = call.args as Record<string, unknown>;
    const channel = typeof args.channel === 'string' ? args.channel : '';
    check(textOf(args), `${call.method} to ${channel || '(no channel)'}`, channel.startsWith('D'));
  }
  for (const post of [...fake.responses, ...fake.refusedResponses])
    check(textOf(post.body), `response_url ${post.id}`, false);
  for (const upload of fake.uploads)
    check(
      upload.bytes.toString('utf8'),
      `upload ${upload.filename} to ${upload.channelId}`,
      upload.channelId?.startsWith('D') ?? false,
    );
  for (const [index, line] of logs.entries()) check(line, `log line ${index + 1}`, false);
  for (const place of elsewhere) check(place.text, place.where, false);
  return leaks;
}
