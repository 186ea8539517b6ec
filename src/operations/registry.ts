/** Every subcommand the bot knows, in the order help lists them, and the changes that can be gated. */

import { apikeys } from './apikeys.js';
import type { GatedOperation } from './approvals/gate.js';
import { approvals, approvalsCancel } from './approvals/listing.js';
import { audit } from './audit.js';
import { dbExec, dbExecGate } from './db/exec.js';
import { dbQuery } from './db/query.js';
import { dbTokensCreate, dbTokensInvalidate, tokenCreateGate, tokenInvalidateGate } from './db/tokens.js';
import { digestLogs, digestShield, digests } from './digests/digest.js';
import type { AnyOperation, CommandForm } from './engine/types.js';
import { home } from './home/operation.js';
import { libraryCreate } from './library.js';
import { investigateCommandForm } from './logs/investigate.js';
import { logs } from './logs/logs.js';
import { typedCommandForm } from './menu/command-forms.js';
import { help, whoami } from './menu/help.js';
import { menu } from './menu/menu.js';
import { pullzoneResetKey, resetKeyGate } from './pullzone-reset-key.js';
import { purgeUrl } from './purge/url.js';
import { purgeZone, purgeZoneGate } from './purge/zone.js';
import { botDetectionGate, shieldBotDetection } from './shield/bot-detection.js';
import { shieldEnums } from './shield/enums.js';
import { shieldExport } from './shield/export.js';
import { stats } from './stats/stats.js';
import { watches, watchLogs } from './watches/watch.js';
import { contextClear, contextSet, contextShow } from './zones/context.js';
import { dns } from './zones/dns.js';
import { pullZones, shieldZones } from './zones/lists.js';

export const operations: readonly AnyOperation[] = [
  help,
  menu,
  whoami,
  home,
  dns,
  pullZones,
  shieldZones,
  apikeys,
  libraryCreate,
  logs,
  watchLogs,
  watches,
  shieldExport,
  shieldEnums,
  shieldBotDetection,
  pullzoneResetKey,
  dbQuery,
  dbExec,
  dbTokensCreate,
  dbTokensInvalidate,
  approvals,
  approvalsCancel,
  audit,
  contextShow,
  contextSet,
  contextClear,
  stats,
  purgeUrl,
  purgeZone,
  digestLogs,
  digestShield,
  digests,
];

/** Forms that stand for a command line: the message shortcut's "Investigate", and each command's own. */
export const commandForms: readonly CommandForm[] = [
  investigateCommandForm,
  ...operations.map(typedCommandForm),
];

/** Words people type for a command's first word: `/edge log` is `/edge logs`. */
export const wordAliases: Readonly<Record<string, string>> = {
  log: 'logs',
  apikey: 'apikeys',
  zones: 'dns',
};

export const gatedOperations: readonly GatedOperation[] = [
  resetKeyGate,
  botDetectionGate,
  dbExecGate,
  tokenCreateGate,
  tokenInvalidateGate,
  purgeZoneGate,
];
