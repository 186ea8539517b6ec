/**
 * `/edge audit --export`: the audit rows of a period as a CSV, for an auditor to keep. The rows
 * stream from the state database a page at a time into a temporary file (never held whole), the
 * hash chain is checked over the whole period as they pass, then the filter keeps its rows; the
 * file goes to the requester by DM, its comment saying first whether the chain held.
 */
import { rm } from 'node:fs/promises';
import { md, trusted } from '../reply/markup.js';
import { ephemeral, type Reply } from '../reply/model.js';
import { counted } from '../reply/words.js';
import { CsvFileWriter } from '../reports/csv/file.js';
import { csvRecord } from '../reports/csv/safety.js';
import { temporaryCsvPath } from '../reports/csv/temp-file.js';
import { AUDIT_EXPORT_COLUMNS, type AuditExportResult, type AuditLog } from '../state/audit.js';
import { UserFacingError } from './engine/errors.js';
import type { RunContext } from './engine/types.js';
import { deliveryErrorCode } from './shared/delivery-errors.js';
import { runLongJob } from './shared/long-job.js';
import { formatUtc } from './shared/time-args.js';

/**
 * The most one export holds: rows (a file a spreadsheet still opens, uploaded in a minute or
 * two), and characters whatever its rows carry (long SQL in db.exec parameters). Tests lower them.
 */
export const EXPORT_LIMITS = { rows: 200_000, chars: 100 * 1024 * 1024 };
/** The audit operation's own Cancel (its key is `audit`): the button of the export's progress message. */
export const EXPORT_CANCEL_ACTION = 'audit:cancel';

export interface AuditExportArgs {
  /** ISO 8601: the start of the period. */
  since: string;
  /** As typed (`30d`, or an instant), for the answer. */
  sinceText: string;
  userIds: string[];
  operation?: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What the file holds besides the period: the filter, in words. */
function filterWords({ userIds, operation }: AuditExportArgs): string {
  const parts = [
    userIds.length > 0 ? `user${userIds.length === 1 ? '' : 's'} ${userIds.join(', ')}` : undefined,
    operation ? `operation ${operation}` : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? `, only ${parts.join(' and ')}` : '';
}

/** The file's comment: the chain's verdict first, then what the file holds and of which period. */
export function exportComment(result: AuditExportResult, window: string, args: AuditExportArgs): string {
  const { verification: chain, inPeriod, exported } = result;
  const verdict = chain.ok
    ? `Hash chain verified over the period: ${counted(inPeriod, 'row')}, no link broken.`
    : `Hash chain BROKEN at row ${chain.brokenAt}: ${chain.reason}. ${counted(chain.count, 'row')} of the period held before it; the rows from there on cannot be vouched for, and the file holds them all the same.`;
  const filtered = filterWords(args);
  const checkedFirst = filtered ? ' The chain was checked over every row of the period, then filtered.' : '';
  return `${verdict} ${counted(exported, 'row')} exported, ${window}${filtered}.${checkedFirst}`;
}

const tooLarge = () => {
  const message = `An audit export holds at most ${EXPORT_LIMITS.rows.toLocaleString('en-US')} rows (or ${Math.round(EXPORT_LIMITS.chars / 1024 / 1024)} MB), and this one would hold more. Narrow it: a shorter --since (e.g. --since 7d), --user MEMBER_ID or --op OPERATION.`;
  return new UserFacingError(
    message,
    ephemeral(message, [{ type: 'text', text: md`:no_entry: ${message}` }]),
  );
};

/** Streams the period into a temporary CSV; the file's path and what the walk found. */
export async function writeAuditExport(
  audit: AuditLog,
  args: AuditExportArgs,
  signal: AbortSignal,
  status: (text: string) => void,
): Promise<{ path: string; result: AuditExportResult }> {
  const path = temporaryCsvPath();
  const writer = new CsvFileWriter(path);
  try {
    let chars = 0;
    let rows = 0;
    const header = csvRecord(AUDIT_EXPORT_COLUMNS);
    chars += header.length;
    await writer.write(header, signal);
    const result = await audit.exportRows({
      since: args.since,
      userIds: args.userIds,
      ...(args.operation ? { operation: args.operation } : {}),
      signal,
      async write(page) {
        signal.throwIfAborted();
        rows += page.length;
        let text = '';
        for (const cells of page) text += csvRecord(cells);
        chars += text.length;
        if (rows > EXPORT_LIMITS.rows || chars > EXPORT_LIMITS.chars) throw tooLarge();
        await writer.write(text, signal);
        status(`${counted(rows, 'row')} written`);
      },
    });
    await writer.close();
    return { path, result };
  } catch (error) {
    await writer.discard();
    await rm(path, { force: true });
    throw error;
  }
}

/** Runs the export as a long job (progress, Cancel) and sends the file to the requester by DM. */
export function exportAudit(ctx: RunContext, args: AuditExportArgs): Promise<Reply | undefined> {
  const now = ctx.services.now();
  const window = `${formatUtc(Date.parse(args.since))} to ${formatUtc(now)}`;
  return runLongJob(ctx, {
    title: 'Audit export',
    cancelActionId: EXPORT_CANCEL_ACTION,
    // The file goes by DM; that someone exports the audit log, and how much, is theirs alone to see.
    progressTo: 'requester',
    async work(job) {
      job.status('reading the audit log');
      const { path, result } = await writeAuditExport(ctx.services.audit, args, job.signal, job.status);
      if (job.signal.aborted) {
        // Cancelled once the last page was read: nothing is sent.
        await rm(path, { force: true });
        job.signal.throwIfAborted();
      }
      job.status('sending it by direct message');
      const rows = counted(result.exported, 'row');
      const file: Reply = {
        visibility: 'dm',
        text: `Audit export: ${rows}, ${window}${result.verification.ok ? '' : ' (hash chain broken)'}`,
        blocks: [],
        files: [
          {
            filename: `audit-export-${day(Date.parse(args.since))}-${day(now)}.csv`,
            title: `Audit log, ${window}`,
            path,
            comment: exportComment(result, window, args),
            about: `${rows} with their hashes`,
          },
        ],
      };
      try {
        await ctx.surface.sendDirect(ctx.userId, file);
      } catch (error) {
        const code = deliveryErrorCode(error) ?? 'no answer from Slack';
        ctx.logger.warn('the audit export could not be sent by direct message', { error });
        const message = `The audit export could not be sent to you by direct message (${code}). Open a direct message with the app and run the command again.`;
        return ephemeral(message, [{ type: 'text', text: md`:warning: ${message}` }]);
      } finally {
        await rm(path, { force: true });
      }
      // Asked in a direct message, the file is the whole answer.
      if (ctx.channelId.startsWith('D')) return undefined;
      const broken = result.verification.ok ? '' : ' The hash chain is broken: its comment says where.';
      return ephemeral(`The audit export went to you by direct message: ${rows}`, [
        {
          type: 'text',
          text: md`:incoming_envelope: The audit export (${rows}, ${window}) went to you by direct message.${broken}`,
        },
        {
          type: 'context',
          text: trusted('The hash chain was checked over the whole period, then the rows were filtered.'),
        },
      ]);
    },
  });
}
