module.exports = {
  displayName: 'e2e',
  preset: '../jest.preset.js',
  testEnvironment: '<rootDir>/harness/log-on-failure-environment.cjs',
  // Global setup runs through Node's own module loader, which cannot map `.js`
  // specifiers to `.ts` sources: that is why this project imports with `.ts` extensions.
  globalSetup: '<rootDir>/harness/global-setup.ts',
  globalTeardown: '<rootDir>/harness/global-teardown.ts',
  // One shared cluster on two cores: suites run one after another, each in its own
  // namespaces, and every wait has its own timeout with a message.
  maxWorkers: 1,
  testTimeout: 180_000,
};
