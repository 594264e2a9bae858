import { parseArgs } from 'node:util';
import {
  FlagError,
  goStyleArgs,
  ignoredKlogFlags,
  KLOG_BOOLEAN_FLAGS,
  KLOG_NO_OP_FLAG_OPTIONS,
  parseAddress,
  parseFeatureGates,
  parseListPageSize,
} from './index.js';

describe('parseAddress', () => {
  it.each([
    [':8944', { host: '0.0.0.0', port: 8944 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8000', { host: '::1', port: 8000 }],
  ])('reads %s', (text, expected) => {
    expect(parseAddress(text, 'address')).toEqual(expected);
  });

  it.each(['8944', 'host:', ':70000'])('refuses %s naming the flag', (text) => {
    expect(() => parseAddress(text, 'address')).toThrow(
      new FlagError(`--address: '${text}' is not host:port (e.g. :8942)`),
    );
  });
});

describe('parseListPageSize', () => {
  it.each([
    ['500', 500],
    ['1', 1],
    ['0', 0],
  ])('reads %s', (text, expected) => {
    expect(parseListPageSize(text)).toBe(expected);
  });

  it.each(['-1', '2.5', '1e3', '', 'ten', '9007199254740993'])(
    'refuses %s naming the flag',
    (text) => {
      expect(() => parseListPageSize(text)).toThrow(
        new FlagError(
          `--list-page-size must be a whole number of objects a page (0: unpaginated), got '${text}'`,
        ),
      );
    },
  );
});

describe('parseFeatureGates', () => {
  const known = {
    InPlace: { default: false, implemented: true },
    CPUStartupBoost: { default: false, implemented: false },
  };

  it('starts from the defaults and applies each entry', () => {
    expect(parseFeatureGates('', known)).toEqual({
      InPlace: false,
      CPUStartupBoost: false,
    });
    expect(
      parseFeatureGates('InPlace=true, CPUStartupBoost=false', known),
    ).toEqual({
      InPlace: true,
      CPUStartupBoost: false,
    });
  });

  it('refuses a gate Tandem lacks only when it is turned on, by name', () => {
    expect(() => parseFeatureGates('CPUStartupBoost=true', known)).toThrow(
      '--feature-gates: CPUStartupBoost=true is not supported by Tandem yet',
    );
  });

  it.each([
    [
      'Nope=true',
      "unknown feature gate 'Nope' (known: CPUStartupBoost, InPlace)",
    ],
    ['InPlace', "'InPlace' is not Name=true or Name=false"],
    ['InPlace=yes', "InPlace must be true or false, got 'yes'"],
  ])('refuses %s', (text, message) => {
    expect(() => parseFeatureGates(text, known)).toThrow(message);
  });
});

describe('klog flags', () => {
  it('parse in upstream spellings and are reported as ignored', () => {
    const args = goStyleArgs(
      ['-logtostderr=false', '--stderrthreshold=info', '--v=4'],
      new Set(KLOG_BOOLEAN_FLAGS),
    );
    const { values } = parseArgs({
      args,
      strict: true,
      allowNegative: true,
      options: { ...KLOG_NO_OP_FLAG_OPTIONS, v: { type: 'string' } },
    });
    expect(values.logtostderr).toBe(false);
    expect(ignoredKlogFlags(values)).toEqual([
      'logtostderr',
      'stderrthreshold',
    ]);
    expect(
      ignoredKlogFlags(
        parseArgs({
          args: goStyleArgs(
            ['--logtostderr=true'],
            new Set(KLOG_BOOLEAN_FLAGS),
          ),
          strict: true,
          options: KLOG_NO_OP_FLAG_OPTIONS,
        }).values,
      ),
    ).toEqual(['logtostderr']);
  });
});
