import { checkUpstreamFlagDoc } from '@tandem/flags';
import { parseFlags } from './flags.js';
import { UPSTREAM_ADMISSION_FLAGS } from './upstream-flags.js';

it("answers every upstream admission controller flag in docs/upstream-flags.md, from the parser's behaviour", () => {
  expect(
    checkUpstreamFlagDoc(
      new URL('../../../docs/upstream-flags.md', import.meta.url),
      'admission-webhook',
      UPSTREAM_ADMISSION_FLAGS,
      parseFlags,
    ),
  ).toEqual({ problems: [], stale: undefined });
});
