import { parseArgs } from 'node:util';
import { FlagError } from './flag-values.js';
import { upstreamFlagAnswers, upstreamFlagMarkdown } from './upstream-flags.js';

/** A parser like an app's: `--rate` (default 5), `--gone` refused by name. */
function parse(argv: readonly string[]) {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      rate: { type: 'string', default: '5' },
      gone: { type: 'string' },
    },
  });
  if (values.gone !== undefined)
    throw new FlagError('--gone is an upstream flag Tandem does not implement');
  return { rate: Number(values.rate) };
}

describe('upstreamFlagAnswers', () => {
  it('tells same defaults, declared different ones and refusals by name apart', () => {
    const { rows, problems } = upstreamFlagAnswers(
      [
        { name: 'rate', upstreamDefault: '5.0' },
        { name: 'gone', upstreamDefault: '' },
      ],
      parse,
    );
    expect(problems).toEqual([]);
    expect(rows.map((row) => row.answer)).toEqual([
      { kind: 'same-default' },
      {
        kind: 'refused',
        reason: '--gone is an upstream flag Tandem does not implement',
      },
    ]);
    expect(upstreamFlagMarkdown(rows)).toContain(
      '| `--gone`      | `""`             | refused  | --gone is an upstream flag Tandem does not implement |',
    );
  });

  it('names what the parser does not bear out', () => {
    const { problems } = upstreamFlagAnswers(
      [
        { name: 'rate', upstreamDefault: '50' },
        { name: 'burst', upstreamDefault: '100' },
        { name: 'rate', upstreamDefault: '50', tandemDefault: '6' },
      ],
      parse,
    );
    expect(problems).toEqual([
      "--rate=50 (upstream's default) is not Tandem's default: give tandemDefault or a note",
      '--burst is refused as an unknown option: refuse it by name, with a reason',
      "--rate: Tandem's default is not 6",
    ]);
  });
});
