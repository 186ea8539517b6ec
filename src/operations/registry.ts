/** Every subcommand the bot knows, in the order help lists them. */
import { apikeys } from './apikeys.js';
import { audit } from './audit.js';
import { dns } from './dns.js';
import { help, whoami } from './help.js';
import { shieldEnums } from './shield-enums.js';
import type { AnyOperation } from './types.js';

export const operations: readonly AnyOperation[] = [help, whoami, dns, apikeys, shieldEnums, audit];
