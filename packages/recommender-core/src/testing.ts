// Fixtures for other projects' tests (the `./testing` export; never built into dist).
export * from './model/model.fixtures.js';
export * from './history/history.fixtures.js';
