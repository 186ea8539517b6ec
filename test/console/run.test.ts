import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock, utcDay } from '../support/clock.js';
import { startConsole, type WholeConsoleDriver } from './driver.js';

const clock = pinnedClock();

/** The number in front of the first button whose label matches. */
function buttonNumber(text: string, label: RegExp): string {
  for (const match of text.matchAll(/\[(\d+)\] ([^[\n]+)/g)) if (label.test(match[2]!)) return match[1]!;
  throw new Error(`no button ${label} in:\n${text}`);
}

describe('the console against the in-process sandbox', () => {
  let c: WholeConsoleDriver;
  beforeAll(async () => {
    c = await startConsole();
  });
  afterAll(async () => {
    await c?.end();
    c?.remove();
  });

  it('says in its banner that it uses the built-in sandbox, its database and the demo policy', () => {
    const banner = c.text();
    expect(banner).toMatch(
      /No PLATFORM_API_URL: using the built-in sandbox platform at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(banner).toMatch(/service database is the sandbox's, at http:\/\/127\.0\.0\.1:\d+ \(id db_/);
    expect(banner).toContain('You are U0YOU in #C0CONSOLE');
    expect(banner).toContain('console demo policy');
    expect(banner).toContain(`Log lines go to the file ${c.logFile}`);
  });

  it('prints the DNS listing with zone names, marked as seen only by you', async () => {
    const out = await c.type('/edge dns');
    expect(out).toContain('only you (U0YOU) see this');
    expect(out).toContain('DNS zones (11)');
    // A table as aligned text: headers, then a row a zone, its record count right-aligned.
    expect(out).toMatch(/Domain +Id +Records +Nameservers detected +DNSSEC +Logging/);
    expect(out).toMatch(/edgeops\.dev +\d+ +\d+ +(yes|no|\?) /);
    expect(out).toContain('shop-example.com');
  });

  it('accepts a subcommand without the /edge prefix', async () => {
    const out = await c.type('dns shop');
    expect(out).toContain('shop-example.com');
    expect(out).not.toContain('edgeops.dev');
  });

  it('shows page 2 when the Next button is clicked, replacing page 1', async () => {
    const first = await c.type('/edge dns --per-page 5');
    expect(first).toContain('Page 1 of 3');
    const next = buttonNumber(first, /^Next/);
    const second = await c.type(`:click ${next}`);
    expect(second).toContain('Page 2 of 3');
    expect(second).toMatch(/replaces #\d+/);
    expect(second).toContain('blog-example.dev');
    const stale = await c.type(`:click ${next}`);
    expect(stale).toMatch(/has since been replaced or updated/);
  });

  it('shows a zone’s records when it is picked in the Records menu', async () => {
    const list = await c.type('/edge dns edgeops.dev');
    expect(list).toMatch(/Records of a zone…:\n +Records: \[\d+\] edgeops\.dev/);
    const out = await c.type(`:click ${buttonNumber(list, /^edgeops\.dev/)}`);
    expect(out).toContain('Records of edgeops.dev');
    expect(out).toMatch(/\n {4}Type +Name +Value +TTL +State/);
    expect(out).toMatch(/\n {4}TXT +@ +v=spf1 include:_spf\.example\.net ~all +300 +enabled/);
  });

  it('answers an unknown subcommand with the usage error', async () => {
    const out = await c.type('/edge dnz');
    expect(out).toContain('"dnz" is not a command (did you mean "dns"?)');
    expect(out).toContain('Type /edge help to see the commands you can run.');
  });

  it('answers a bad flag with the usage line of that subcommand', async () => {
    const out = await c.type('/edge dns --per-page 2');
    expect(out).toContain('--per-page must be between 5 and 1000');
    expect(out).toContain('Usage: /edge dns [SEARCH]');
  });

  it('refuses unknown console commands and other slash commands clearly', async () => {
    expect(await c.type(':clikc 3')).toContain('Unknown console command ":clikc" (did you mean ":click"?)');
    expect(await c.type('/deploy now')).toContain('Only /edge is known here, not /deploy.');
    expect(await c.type(':click 9999')).toContain('There is no button [9999].');
    expect(await c.type(':click')).toContain('Usage: :click N');
  });

  it('acts as another user after :as, and shows who in the prompt', async () => {
    const out = await c.type(':as U0LEAD');
    expect(out).toMatch(/edge\(U0LEAD\)> $/);
    const listing = await c.type('/edge dns --per-page 5');
    expect(listing).toContain('only you (U0LEAD) see this');
    const back = await c.type(':as U0YOU');
    expect(back).toMatch(/\nedge> $/);
  });

  it('does not let another user click a button on a message only you see', async () => {
    const list = await c.type('/edge dns --per-page 5');
    const next = buttonNumber(list, /^Next/);
    await c.type(':as U0LEAD2');
    expect(await c.type(`:click ${next}`)).toContain('only U0YOU sees; switch with :as U0YOU');
    await c.type(':as U0YOU');
  });

  it('writes what does not fit in a message to a file in the out folder and prints its path', async () => {
    // More requests than a table in a message shows (99 under its headers).
    await c.type(...Array.from({ length: 150 }, () => 'apikeys --per-page 5'));
    const out = await c.type('/edge audit --limit 200');
    expect(out).toMatch(/Showing the first 99 of \d+ rows; every row is in the attached CSV/);
    const saved = [...out.matchAll(/📎 (\S+)/g)].map((match) => match[1]);
    const requests = saved.find((path) => /audit-requests-\d+\.csv$/.test(path ?? ''));
    expect(dirname(requests ?? '')).toBe('out');
    // And the rows with every field, which a table row never holds whole.
    expect(readdirSync(c.outDir).sort()).toEqual([
      expect.stringMatching(/^audit-newest-\d+\.csv$/),
      expect.stringMatching(/^audit-requests-\d+\.csv$/),
    ]);
    const file = readFileSync(join(c.outDir, basename(requests!)), 'utf8');
    expect(file.split('\n').filter((line) => line.includes('apikey.list')).length).toBeGreaterThanOrEqual(
      150,
    );
  });

  it('keeps log lines out of the conversation and secrets out of both', () => {
    const log = readFileSync(c.logFile, 'utf8');
    expect(log).toContain('edgeops starting in console mode');
    expect(c.text()).not.toContain('"level"');
    for (const secret of c.secrets.values()) {
      expect(log).not.toContain(secret);
      expect(c.text()).not.toContain(secret);
    }
  });
});

describe('the console with a configured platform and policy', () => {
  it('uses PLATFORM_API_URL and the EDGEOPS_POLICY file instead of the sandbox and the demo policy', async () => {
    const sandbox = await startSandbox({ now: clock });
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-policy-'));
    const policyPath = join(dir, 'policy.yml');
    writeFileSync(
      policyPath,
      'channels: [C0OPS]\nroles:\n  everyone: ["*"]\ngrants:\n  - ops: [dns.list]\n    roles: [everyone]\n',
    );
    const c = await startConsole({
      env: { PLATFORM_API_URL: sandbox.apiUrl, PLATFORM_API_KEY: sandbox.apiKey, EDGEOPS_POLICY: policyPath },
    });
    try {
      const banner = c.text();
      expect(banner).toContain(`Platform: ${sandbox.apiUrl} (PLATFORM_API_URL)`);
      expect(banner).not.toContain('built-in sandbox');
      expect(banner).toContain('Service database: not configured');
      expect(banner).toContain(`Policy: ${policyPath}.`);
      // The file allows /edge only in C0OPS, so the console channel gets the denial.
      const out = await c.type('/edge dns');
      expect(out).toContain('C0OPS');
      expect(out).not.toContain('DNS zones');
      expect(sandbox.requests.count('dnszone.list')).toBe(0);
    } finally {
      await c.end();
      c.remove();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what the console prints', () => {
  it('passes the secret registry: a platform error echoing the account key is shown scrubbed', async () => {
    const sandbox = await startSandbox({ now: clock });
    sandbox.faults.set('apikey.list', {
      status: 400,
      times: 1,
      body: { Message: `Key ${sandbox.apiKey} may not list keys` },
    });
    const c = await startConsole({
      env: { PLATFORM_API_URL: sandbox.apiUrl, PLATFORM_API_KEY: sandbox.apiKey },
    });
    try {
      const out = await c.type('/edge apikeys');
      expect(out).toContain('may not list keys');
      expect(out).not.toContain(sandbox.apiKey);
      expect(out).toContain(`[redacted …${sandbox.apiKey.slice(-4)}]`);
    } finally {
      await c.end();
      c.remove();
      await sandbox.close();
    }
  });
});

describe('approvals in the console', () => {
  it('lets an approver, switched to with :as, approve a request; the secret goes to the requester by DM', async () => {
    const c = await startConsole();
    try {
      const asked = await c.type('/edge pullzone reset-key 308006 rotate after a leak');
      const card = /── #(\d+) · posted in #C0APPROVALS ──/.exec(asked)?.[1];
      expect(card).toBeDefined();
      const approve = buttonNumber(asked, /^Approve/);
      expect(await c.type(`:click ${approve}`)).toMatch(/cannot approve/);
      await c.type(':as U0LEAD');
      const approved = await c.type(`:click ${approve}`);
      expect(approved).toContain(`── updated message #${card} · posted in #C0APPROVALS ──`);
      const dm = /── #\d+ · DM to U0YOU ──\n([\s\S]*?)\n\n/.exec(approved)?.[1] ?? '';
      const key = c.secrets.values().find((secret) => dm.includes(secret));
      expect(key).toBeDefined();
      // Shown once, in the DM only; the card and the channel show a fingerprint.
      expect(approved.split(key!).length).toBe(2);
      expect(approved).toContain(`…${key!.slice(-4)}`);
      // "Saved it, delete this": the console cannot unprint it, so it says the message is gone.
      const dmNumber = /── #(\d+) · DM to U0YOU ──/.exec(approved)![1];
      const saved = buttonNumber(approved, /^Saved it, delete this/);
      await c.type(':as U0YOU');
      const deleted = await c.type(`:click ${saved}`);
      expect(deleted).toContain(`── message #${dmNumber} deleted ──`);
      expect(deleted).toContain('Deleted: the secret is gone from this conversation');
      expect(deleted).not.toContain(key!);
    } finally {
      await c.end();
      c.remove();
    }
  });
});

describe('rejecting in the console', () => {
  it('asks the reason in the form, and shows it on the card and in the requester’s DM', async () => {
    const c = await startConsole();
    try {
      const asked = await c.type('/edge pullzone reset-key 308006 rotate after a leak');
      const reject = buttonNumber(asked, /^Reject/);
      await c.type(':as U0LEAD');
      const rejected = await c.type(`:click ${reject}`, 'not during the freeze');
      expect(rejected).toContain('Reason (text, optional)');
      expect(rejected).not.toContain('(optional)');
      expect(rejected).toContain('⛔ Rejected');
      expect(rejected).toContain('Rejected by @U0LEAD: not during the freeze');
      expect(rejected).toMatch(
        /DM to U0YOU ──\n[^\n]*rejected your request[^\n]*Reason: not during the freeze/,
      );
    } finally {
      await c.end();
      c.remove();
    }
  });
});

describe('a console whose state database outlives the session', () => {
  it('against a real platform, shows pending requests again at start with their buttons, and they can be approved', async () => {
    const sandbox = await startSandbox({ now: clock });
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-state-'));
    const env = {
      PLATFORM_API_URL: sandbox.apiUrl,
      PLATFORM_API_KEY: sandbox.apiKey,
      STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
    };
    try {
      const first = await startConsole({ env });
      try {
        expect(await first.type('/edge pullzone reset-key 308006 rotated')).toContain('Approval requested');
      } finally {
        await first.end();
        first.remove();
      }
      const second = await startConsole({ env });
      try {
        const start = second.text();
        expect(start).toContain('1 approval request is still waiting; its card is shown again above.');
        expect(start).toContain('Reset the token-authentication key of pull zone 308006');
        const approve = buttonNumber(start, /^Approve/);
        await second.type(':as U0LEAD');
        await second.type(`:click ${approve}`);
        await second.waitFor(/Done/, 0);
        expect(sandbox.requests.count('pullzone.resetSecurityKey')).toBe(1);
      } finally {
        await second.end();
        second.remove();
      }
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('incident tools in the console', () => {
  it('summarises a day of origin errors and writes its CSV to the out folder', async () => {
    const c = await startConsole({ clock });
    try {
      const out = await c.type('/edge logs 308006 today');
      expect(out).toContain('posted in #C0CONSOLE');
      // The headline, then its thread, marked as such: the summary, the chart and the files.
      const headline = out.search(/\d origin errors? · pull zone 308006/);
      const thread = out.search(/posted in #C0CONSOLE, in the thread of #\d+ ──/);
      expect(headline).toBeGreaterThan(0);
      expect(thread).toBeGreaterThan(headline);
      expect(out.slice(thread)).toContain('Origin errors · pull zone 308006');
      expect(out).toContain('Errors per 15 min (UTC)');
      const day = utcDay(clock());
      const saved = readdirSync(c.outDir).find((name) => name === `origin-errors-308006-${day}.csv`);
      expect(saved).toBeDefined();
      expect(out).toContain(saved!);
      const csv = readFileSync(join(c.outDir, saved!), 'utf8');
      expect(csv.split('\r\n')[0]).toBe('timestamp,status,error_code,server_zone,url,message,log_id');
      // The chart is text bars here, and its picture is saved beside the CSV.
      expect(out).toMatch(/ {4}00:00 [█▏▎▍▌▋▊▉ ]+ \d/);
      const picture = `origin-errors-chart-308006-${day}.png`;
      expect(readdirSync(c.outDir)).toContain(picture);
      expect(out).toContain(picture);
      expect(readFileSync(join(c.outDir, picture)).subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await c.end();
      c.remove();
    }
  });
});

describe('leaving the console', () => {
  it('ends on :quit, and the session returns', async () => {
    const c = await startConsole();
    try {
      c.send(':quit');
      await c.done;
      expect(c.text()).toMatch(/edge> :quit\nBye\.\n$/);
    } finally {
      c.remove();
    }
  });

  it('finishes the last command before ending at the end of input', async () => {
    const c = await startConsole();
    try {
      const from = c.text().length;
      c.send('/edge dns');
      await c.end();
      expect(c.text().slice(from)).toMatch(/^\/edge dns\n[\s\S]*DNS zones \(11\)[\s\S]*\nBye\.\n$/);
    } finally {
      c.remove();
    }
  });
});
