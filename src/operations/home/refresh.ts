/**
 * Keeping Homes current: after a change that concerns someone (a request they asked for or may
 * approve changes state, a watch of theirs starts or ends), their Home is drawn again. Changes
 * are gathered for a moment and each Home is drawn once per batch, at most HOME_REFRESH_MAX of
 * them; a failure to draw one is logged, never thrown into the change that caused it. One
 * person's Home is drawn once at a time, and a Home drawn while the policy changed is drawn
 * again instead of being published, so the Home last published always follows the policy in force.
 * The Home is drawn here, by `draw`, and handed to the adapter's HomePublisher: the adapter never
 * runs a command to draw it.
 */
import { type ApprovalRequest, isEscalated } from '../../approvals/machine.js';
import type { ApprovalService } from '../../approvals/service.js';
import type { GroupMembership } from '../../policy/groups.js';
import type { Reply } from '../../reply/model.js';
import type { DigestStore } from '../../state/digests.js';
import type { Logger } from '../../telemetry/log.js';
import type { WatchStore } from '../../watches/store.js';
import type { HomePublisher, HomeRedraws } from '../engine/ports.js';

/** Homes drawn again in one batch; the others are current the next time they are opened. */
export const HOME_REFRESH_MAX = 100;
/** People whose Home was drawn lately, refreshed for requests anyone ("*") may approve. */
const RECENT_HOMES_MAX = 500;
/** Draws of one Home in a row while the policy keeps changing; then it waits to be opened again. */
export const HOME_DRAW_ATTEMPTS = 3;

export interface HomeRefresher extends HomeRedraws {
  /** The Homes of these users are to be drawn again soon. */
  changed(userIds: Iterable<string>): void;
  /**
   * The Homes a request concerns: its requester and its approvers, groups and "*" included, and
   * its escalation role once half its time to live has passed.
   */
  requestChanged(request: ApprovalRequest): void;
  close(): void;
}

export function createHomeRefresher(options: {
  groups: GroupMembership;
  logger: Logger;
  /** How long changes are gathered before the Homes are drawn. */
  delayMs: number;
  /** The clock escalation is judged by. */
  now: () => number;
  /** Moves whenever another policy comes into force (PolicyStore.generation). */
  policyGeneration: () => number;
  /** One person's Home as it stands now, its card links made by the publisher. */
  draw: (userId: string, links: Pick<HomePublisher, 'permalink'>) => Promise<Reply>;
}): HomeRefresher {
  const waiting = new Set<string>();
  const recent = new Set<string>();
  let publisher: HomePublisher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Each person's last draw, which their next one waits for. */
  const drawing = new Map<string, Promise<void>>();

  /**
   * Draws a Home until one is drawn and published under a single policy throughout: one drawn
   * under a policy that changed before it was published, or while it was, is drawn again.
   */
  async function publishCurrent(userId: string): Promise<void> {
    for (let attempt = 0; attempt < HOME_DRAW_ATTEMPTS; attempt++) {
      const to = publisher;
      if (!to) return;
      const generation = options.policyGeneration();
      // Closed meanwhile (a stopping replica, whose stores close under the draw): the Home up stays.
      const current = () => publisher === to && options.policyGeneration() === generation;
      const home = await options.draw(userId, to);
      // Drawn under a policy no longer in force: nothing is published, it is drawn again.
      const published = current() && (await to.publish(userId, home, current));
      if (published) noteDrawn(userId);
      // A policy that came into force while the view was on its way leaves the old one up: draw again.
      if (published && current()) return;
    }
    options.logger.warn('a Home was not published: the policy changed each time it was drawn', {
      user: userId,
    });
  }

  /** Notes a Home just drawn, so that requests anyone may approve refresh it too. */
  function noteDrawn(userId: string): void {
    recent.delete(userId);
    recent.add(userId);
    if (recent.size > RECENT_HOMES_MAX) recent.delete(recent.values().next().value!);
  }

  /** One draw of a person's Home at a time, so one drawn earlier never lands after a later one. */
  function publishInTurn(userId: string): Promise<void> {
    const drawn = (drawing.get(userId) ?? Promise.resolve()).then(() => publishCurrent(userId));
    const settled = drawn.then(
      () => undefined,
      () => undefined,
    );
    drawing.set(userId, settled);
    void settled.then(() => {
      if (drawing.get(userId) === settled) drawing.delete(userId);
    });
    return drawn;
  }

  async function drawWaiting(): Promise<void> {
    timer = undefined;
    if (!publisher) {
      waiting.clear();
      return;
    }
    const batch = [...waiting].slice(0, HOME_REFRESH_MAX);
    const left = waiting.size - batch.length;
    waiting.clear();
    if (left > 0) options.logger.warn('some Homes were not refreshed; they are when opened', { left });
    for (const userId of batch) {
      try {
        await publishInTurn(userId);
      } catch (error) {
        // Slack would not take it (a revoked token, a missing scope): ours to look at, as a failed answer is.
        options.logger.error('a Home could not be refreshed', { user: userId, error });
      }
    }
  }

  /** A batch that fails as a whole leaves the chain going: the next batch still runs. */
  const drawWaitingSafely = () =>
    drawWaiting().catch((error: unknown) => options.logger.error('Homes could not be refreshed', { error }));

  const schedule = () => {
    if (timer || !publisher) return;
    timer = setTimeout(() => {
      running = running.then(drawWaitingSafely);
    }, options.delayMs);
    timer.unref();
  };

  const refresher: HomeRefresher = {
    changed(userIds) {
      for (const id of userIds) if (/^[UW][A-Z0-9]+$/.test(id)) waiting.add(id);
      if (waiting.size > 0) schedule();
    },
    requestChanged(request) {
      if (!publisher) return;
      const approverIds = [
        ...request.approverIds,
        ...(isEscalated(request, new Date(options.now())) ? (request.escalation?.ids ?? []) : []),
      ];
      const users = [request.requester, ...approverIds];
      if (approverIds.includes('*')) users.push(...recent);
      const groupIds = approverIds.filter((id) => id.startsWith('S'));
      if (groupIds.length === 0) {
        refresher.changed(users);
        return;
      }
      void options.groups
        .membersOf(groupIds)
        .then((members) => refresher.changed([...users, ...[...members.values()].flatMap((set) => [...set])]))
        .catch((error: unknown) => {
          options.logger.warn('approver groups could not be read to refresh their Homes', { error });
          refresher.changed(users);
        });
    },
    publishTo(next) {
      publisher = next;
    },
    async publish(userId) {
      try {
        await publishInTurn(userId);
      } catch (error) {
        options.logger.error('a Home could not be drawn or published', { user: userId, error });
      }
    },
    async flush() {
      if (timer) {
        clearTimeout(timer);
        running = running.then(drawWaitingSafely);
      }
      await running;
    },
    close() {
      publisher = undefined;
      if (timer) clearTimeout(timer);
      timer = undefined;
      waiting.clear();
    },
  };
  return refresher;
}

/**
 * The approval service, telling the refresher about every request a change returns. Wrapped
 * where it is built, so each transition is seen wherever it is made (a click, the sweep).
 */
export function refreshingApprovals(service: ApprovalService, refresher: HomeRefresher): ApprovalService {
  const tell = (...requests: (ApprovalRequest | undefined)[]) => {
    for (const request of requests) if (request) refresher.requestChanged(request);
  };
  return {
    ...service,
    async request(input) {
      const result = await service.request(input);
      tell(result.ok ? result.request : undefined, ...result.expired);
      return result;
    },
    async click(input) {
      const result = await service.click(input);
      tell(result.request);
      return result;
    },
    async beginExecution(id, stepOptions) {
      const result = await service.beginExecution(id, stepOptions);
      tell(result.request);
      return result;
    },
    async finishExecution(id, outcome, stepOptions) {
      const result = await service.finishExecution(id, outcome, stepOptions);
      tell(result.request);
      return result;
    },
    async executeApproved(id, executor, stepOptions) {
      const report = await service.executeApproved(id, executor, stepOptions);
      tell(report.request);
      return report;
    },
    async expireStale(stepOptions) {
      const expired = await service.expireStale(stepOptions);
      tell(...expired);
      return expired;
    },
    async recoverAfterCrash(recoverOptions) {
      const recovered = await service.recoverAfterCrash(recoverOptions);
      tell(...recovered);
      return recovered;
    },
    // Half the time to live: the escalation role may approve from now on.
    async claimReminders() {
      const due = await service.claimReminders();
      tell(...due);
      return due;
    },
    async cancelUnposted(id, reason, stepOptions) {
      const cancelled = await service.cancelUnposted(id, reason, stepOptions);
      // The cancel is done: a Home left unredrawn is not a reason to report it failed.
      if (cancelled) tell((await service.get(id).catch(() => null)) ?? undefined);
      return cancelled;
    },
  };
}

/** The watch store, telling the refresher when a watch starts or ends (by a click or the poller). */
export function refreshingWatches(store: WatchStore, refresher: HomeRefresher): WatchStore {
  return {
    ...store,
    async insert(watch, caps) {
      const outcome = await store.insert(watch, caps);
      if (outcome.inserted) refresher.changed([watch.owner]);
      return outcome;
    },
    async end(id, reason, by, at) {
      const ended = await store.end(id, reason, by, at);
      if (ended) refresher.changed([ended.owner]);
      return ended;
    },
  };
}

/** The digest store, telling the refresher when a digest is set or stops (by a click or the runner). */
export function refreshingDigests(store: DigestStore, refresher: HomeRefresher): DigestStore {
  /** A digest's owner's Home, after a run moved its next time: best effort, and the run does not wait for it. */
  const movedOn = (digestId: string) => {
    void store
      .get(digestId)
      .then((digest) => {
        if (digest) refresher.changed([digest.owner]);
      })
      .catch(() => undefined);
  };
  return {
    ...store,
    async finish(claim, end, at, nextRunAt) {
      await store.finish(claim, end, at, nextRunAt);
      movedOn(claim.digestId);
    },
    async advance(digestId, nextRunAt) {
      await store.advance(digestId, nextRunAt);
      movedOn(digestId);
    },
    async insert(digest, caps) {
      const outcome = await store.insert(digest, caps);
      if (outcome.inserted) refresher.changed([digest.owner]);
      return outcome;
    },
    async end(id, reason, by, at) {
      const ended = await store.end(id, reason, by, at);
      if (ended) refresher.changed([ended.owner]);
      return ended;
    },
  };
}
