/**
 * `npm run sandbox`: the sandbox platform on fixed ports, for trying the bot or curl by hand.
 * SANDBOX_PORT (default 4010) is the management API; the database listens on SANDBOX_DATABASE_PORT
 * (default the next port; with SANDBOX_PORT=0 both are free ports). SANDBOX_SEED changes the data.
 */
import { z } from 'zod';
import { systemClock } from '../time/clock.js';
import { DEFAULT_SEED, startSandbox } from './server.js';

const port = z.coerce.number().int().min(0).max(65535);
const EnvSchema = z.object({
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_PORT: port.default(4010),
  SANDBOX_DATABASE_PORT: port.optional(),
  SANDBOX_SEED: z.coerce.number().int().default(DEFAULT_SEED),
});

async function main(): Promise<void> {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    process.stderr.write(`sandbox: ${issue?.path.join('.')} ${issue?.message}\n`);
    process.exit(1);
  }
  const env = parsed.data;
  const sandbox = await startSandbox({
    host: env.SANDBOX_HOST,
    port: env.SANDBOX_PORT,
    // Port 0 asks for free ports, for both listeners.
    databasePort: env.SANDBOX_DATABASE_PORT ?? (env.SANDBOX_PORT === 0 ? 0 : env.SANDBOX_PORT + 1),
    seed: env.SANDBOX_SEED,
    now: systemClock,
  });
  const { ids } = sandbox;
  const lines = [
    'edgeops sandbox platform is running',
    '',
    `  PLATFORM_API_URL=${sandbox.apiUrl}`,
    `  PLATFORM_API_KEY=${sandbox.apiKey}`,
    `  PLATFORM_LOGGING_URL=${sandbox.loggingUrl}`,
    `  PLATFORM_DATABASE_API_URL=${sandbox.databaseApiUrl}`,
    `  SERVICE_DATABASE_URL=${sandbox.databaseUrl}`,
    `  SERVICE_DATABASE_AUTH_TOKEN=${sandbox.databaseTokens.fullAccess}`,
    '',
    `  database id          ${sandbox.databaseId}`,
    `  read-only token      ${sandbox.databaseTokens.readOnly}`,
    `  pull zones           ${sandbox.pullZoneIds.join(', ')} (${ids.bigPullZone}: 1,000,000 errors a day; ${ids.quietPullZone}: none)`,
    `  shield zones         ${sandbox.shieldZoneIds.join(', ')} (${ids.basicShieldZone}: no bot detection; ${ids.bigShieldZone}: ~200 MB export)`,
    '',
    'Try:',
    `  curl -s -H 'AccessKey: ${sandbox.apiKey}' '${sandbox.apiUrl}/dnszone?perPage=5&view=1'`,
    `  curl -s -H 'AccessKey: ${sandbox.apiKey}' '${sandbox.loggingUrl}/${ids.pullZone}/${todayAsPathDate()}' | head -c 600`,
    `  curl -s -H 'Authorization: Bearer ${sandbox.databaseTokens.readOnly}' -H 'Content-Type: application/json' \\`,
    `    -d '{"requests":[{"type":"execute","stmt":{"sql":"SELECT id, name FROM customers LIMIT 3"}},{"type":"close"}]}' \\`,
    `    '${sandbox.databaseUrl}/v2/pipeline'`,
    '',
    'Ctrl-C stops it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = async () => {
    await sandbox.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function todayAsPathDate(): string {
  const today = new Date(systemClock());
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(today.getUTCMonth() + 1)}-${pad(today.getUTCDate())}-${today.getUTCFullYear()}`;
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
