/**
 * What operations reach the world through, with no run context of their own: the adapter's
 * surface (answer the requester, post elsewhere), the zone directory and the Home's redraws. The
 * desks that take a RunContext (approvals, watches, the Home's content) stay with it in types.ts:
 * the context holds them, so they and it are one recursive type, and two files an import cycle.
 */
import type { ModalSpec, ZoneKind, ZonePick } from '../../reply/form.js';
import type { MessageRef, Reply } from '../../reply/model.js';

/**
 * What an adapter offers operations: answer the requester, post elsewhere, update, DM, open
 * a form. Slack implements it with the Web API; the console prints.
 */
/** Posts anywhere, outside any one request: the approval sweep and shown cards use it alone. */
export interface Messenger {
  /** Posts in a channel, or in one of its threads when `threadTs` (the thread's first message) is given. */
  postToChannel(channelId: string, reply: Reply, threadTs?: string): Promise<MessageRef | undefined>;
  update(ref: MessageRef, reply: Reply): Promise<void>;
  /** A private message to one user, for secrets that are shown once; the message it became, when known. */
  sendDirect(userId: string, reply: Reply): Promise<MessageRef | undefined>;
  /**
   * Deletes a message the bot posted (a DM that delivered a secret). Throws the transport's
   * refusal, e.g. Slack's `message_not_found` when it is already gone.
   */
  deleteMessage(ref: MessageRef): Promise<void>;
  /** A link to a message people can open, when the transport has one (Slack's permalink). */
  permalink(ref: MessageRef): Promise<string | undefined>;
}

/** Answers the one request being handled. */
export interface Responder {
  /**
   * Answers the requester where they asked (visibility decides ephemeral, channel or DM). Returns
   * the message it became, when there is one: in another conversation (the requester's DM) when
   * it could not be posted where asked.
   */
  respond(reply: Reply): Promise<MessageRef | undefined>;
  openModal(modal: ModalSpec): Promise<void>;
  /**
   * Shows a reply in a window of its own (a Slack modal, for the menu) when the request brought
   * a way to open one; otherwise answers with it. Its buttons work as on a message, and a form
   * one of them opens takes the window's place.
   */
  openPanel(panel: { title: string; reply: Reply }): Promise<void>;
  /** The message whose button was clicked, when a click brought one (not a modal, not the Home). */
  readonly clicked?: MessageRef;
}

/** What a request's handler holds: its own answer, and posting anywhere (cards, DMs). */
export interface Surface extends Responder, Messenger {}

export interface ZoneChoice {
  kind: ZoneKind;
  id: number;
  /** The pull zone's name; for a Shield zone, the name of the pull zone it guards. */
  name?: string;
  /** Offered because its id was typed, not because a list has it. */
  typed?: true;
  /** A pull zone's first hostname, e.g. `www-example.b-cdn.net`. */
  hostname?: string;
  /** Every hostname of a pull zone, its first included. */
  hostnames?: readonly string[];
  /** The pull zone a Shield zone guards. */
  pullZoneId?: number;
}

/** Pull zones and Shield zones by id and name; operations/zones/directory.ts implements it. */
export interface ZoneDirectory {
  /**
   * Zones whose name contains `typed` or whose id starts with it, at most `limit`, ids typed in
   * full first. Empty when the lists cannot be had within `waitMs` or the platform fails.
   */
  suggest(pick: ZonePick, typed: string, options: { waitMs: number; limit: number }): Promise<ZoneChoice[]>;
  /**
   * The zone with this id, loaded afresh when the kept list lacks it;
   * `absent` only when the list read is the account's whole list, else `unchecked` (more zones
   * than the bot reads). Platform errors are thrown.
   */
  find(kind: ZoneKind, id: number): Promise<{ zone: ZoneChoice } | { absent: true } | { unchecked: true }>;
  /**
   * The pull zone one of whose hostnames is `host` (in any case), loaded afresh when the kept list
   * lacks it; `absent`, with every hostname of the account, only when the list read is the
   * account's whole list, else `unchecked`. Platform errors are thrown.
   */
  findHostname(
    host: string,
  ): Promise<{ zone: ZoneChoice } | { absent: true; hostnames: string[] } | { unchecked: true }>;
}

/**
 * Where a person's Home is shown, for a transport that has one (Slack's Home tab): operations draw
 * the Home, the adapter publishes it.
 */
export interface HomePublisher {
  /**
   * Publishes `home` as the person's Home, unless `current` (asked just before) says the policy it
   * was drawn under is no longer in force. Whether it was published; failures are thrown.
   */
  publish(userId: string, home: Reply, current: () => boolean): Promise<boolean>;
  /** A link to a message (an approval card), for the Home to point to. */
  permalink(ref: MessageRef): Promise<string | undefined>;
}

/** The Home's redraws as the adapter drives them; operations/home/refresh.ts implements it. */
export interface HomeRedraws {
  /** Where Homes are published (the Slack adapter); without one nothing is drawn (the console). */
  publishTo(publisher: HomePublisher): void;
  /**
   * Draws one Home now (it was opened), after any draw of it under way; one drawn while the policy
   * changed is drawn again, never published. Never throws: a failure is logged.
   */
  publish(userId: string): Promise<void>;
  /** Draws what is waiting now (tests, shutdown). */
  flush(): Promise<void>;
}
