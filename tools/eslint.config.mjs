import baseConfig from '../eslint.config.mjs';

// The benchmarks run the updater's cycle in memory, so tools may import the modules that
// app exports (`@nx/enforce-module-boundaries` forbids importing
// apps otherwise); the rest of the base rule's options stay as they are.
const RULE = '@nx/enforce-module-boundaries';
const base = baseConfig.find((config) => config.rules?.[RULE] !== undefined);
if (base === undefined)
  throw new Error(`../eslint.config.mjs no longer configures ${RULE}`);
const [level, options] = base.rules[RULE];

export default [
  ...baseConfig,
  {
    files: ['**/*.ts'],
    rules: {
      [RULE]: [
        level,
        {
          ...options,
          allow: [...options.allow, '@tandem/updater/*'],
        },
      ],
    },
  },
];
