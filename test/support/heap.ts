import { getHeapSpaceStatistics } from 'node:v8';

/**
 * The heap in use outside the young generation's semi-spaces: what a test of "this never holds
 * the whole body" should watch. A body held in memory is there within two collections, and
 * streaming tens of megabytes runs dozens; the garbage between collections is not, and its
 * ceiling is V8's to choose (Node 24's young generation holds twice Node 20's).
 */
export const heapOutsideNewSpace = (): number =>
  getHeapSpaceStatistics().reduce(
    (sum, space) => (space.space_name === 'new_space' ? sum : sum + space.space_used_size),
    0,
  );
