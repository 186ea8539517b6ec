import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: run files in two forks so socket-heavy suites do not starve each other.
    pool: 'forks',
    maxWorkers: 2,
    // As the image and `npm start` run the bot: the event loop's young collections (reports/young-collection.ts).
    execArgv: ['--expose-gc'],
  },
});
