// Shared Jest settings for every project: SWC compiles TypeScript (fast, no type
// check: `nx typecheck` does that), and workspace packages resolve to their sources
// through the `@tandem/source` export condition, so tests never need a prior build.
// Tests run as native ES modules (Node's --experimental-vm-modules, set on the Nx test
// target) because the code is ESM and so is @kubernetes/client-node.
module.exports = {
  reporters: [
    'default',
    require('node:path').join(__dirname, 'tools', 'jest-summary-reporter.cjs'),
  ],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  testMatch: ['**/?(*.)+(spec|test).ts'],
  resolver: '@nx/jest/plugins/resolver',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/out-tsc/'],
  testEnvironmentOptions: {
    customExportConditions: ['@tandem/source', 'node', 'node-addons'],
  },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: {
          target: 'es2023',
          parser: { syntax: 'typescript' },
          keepClassNames: true,
        },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
};
