import type { HomeRefresher } from '../../src/operations/home/refresh.js';

/**
 * Hands the refresher a HomePublisher that calls `publish` with whom the Home is for and whether
 * the policy it was drawn under is still in force, and reports it published when it still is.
 */
export function publishing(
  homes: HomeRefresher,
  publish: (userId: string, current: () => boolean) => Promise<void>,
): void {
  homes.publishTo({
    permalink: async () => undefined,
    async publish(userId, _home, current) {
      await publish(userId, current);
      return current();
    },
  });
}
