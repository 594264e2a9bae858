import { readFileSync, writeFileSync } from 'node:fs';
import { flagMarkdown } from '@tandem/flags';
import { RECOMMENDER_FLAGS } from './flag-table.js';
import { HelpRequested, parseFlags, recommenderHelp } from './flags.js';

const README = new URL('../../README.md', import.meta.url);
const BEGIN = '<!-- flags:begin -->';
const END = '<!-- flags:end -->';
const REWRITE =
  'UPDATE_README_FLAGS=1 npx nx test recommender --skip-nx-cache -- --testPathPatterns=flag-table';

/** The README with the text between the markers generated from the table. */
function readmeFromTable(readme: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin === -1 || end < begin)
    throw new Error(`apps/recommender/README.md lacks ${BEGIN} … ${END}`);
  return `${readme.slice(0, begin + BEGIN.length)}\n\n${flagMarkdown(RECOMMENDER_FLAGS)}\n${readme.slice(end)}`;
}

function helpFor(argv: string[]): string {
  try {
    parseFlags(argv);
  } catch (error) {
    if (error instanceof HelpRequested) return error.help;
    throw error;
  }
  throw new Error(`no help for ${argv.join(' ')}`);
}

describe('the recommender flag table', () => {
  it.each(Object.entries(RECOMMENDER_FLAGS))(
    '--%s parses its own default',
    (name, flag) => {
      expect(() => flag.parse(flag.default, name, false)).not.toThrow();
      const given = () => parseFlags([`--${name}=${flag.default}`]);
      // Upstream flags Tandem lacks are refused whenever they are given.
      if (flag.group?.startsWith('External metrics'))
        expect(given).toThrow('Tandem does not implement');
      else expect(given).not.toThrow();
    },
  );

  it.each([['--help'], ['-h'], ['-help'], ['--v=loud', '--help']])(
    '%s prints every flag with its default, before any flag error',
    (...argv) => {
      const help = helpFor(argv);
      expect(help).toBe(recommenderHelp());
      expect(help).toMatch(/^Usage: tandem-recommender/);
      for (const [name, flag] of Object.entries(RECOMMENDER_FLAGS))
        expect(help).toContain(
          `\n  --${name}=${flag.default === '' ? '""' : flag.default}\n`,
        );
    },
  );

  it('is the README flag table', () => {
    const readme = readFileSync(README, 'utf8');
    const expected = readmeFromTable(readme);
    if (readme === expected) return;
    if (process.env['UPDATE_README_FLAGS'] === '1') {
      writeFileSync(README, expected);
      return;
    }
    const line = expected
      .split('\n')
      .find((text, i) => text !== readme.split('\n')[i]);
    throw new Error(
      `README flag table is out of date: run \`${REWRITE}\` (first differing line: ${line?.slice(0, 100)})`,
    );
  });
});
