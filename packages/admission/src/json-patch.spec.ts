import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import {
  encodePatch,
  jsonPointer,
  patchProblem,
  withAdds,
  type AddOperation,
} from './json-patch.js';

describe('jsonPointer', () => {
  it('escapes ~ and / in every segment (RFC 6901)', () => {
    expect(
      jsonPointer('metadata', 'annotations', 'tandem.dev/original-resources'),
    ).toBe('/metadata/annotations/tandem.dev~1original-resources');
    expect(jsonPointer('a~b', 'c/d~/e', 0)).toBe('/a~0b/c~1d~0~1e/0');
  });
});

describe('encodePatch', () => {
  it('is the base64 of the JSON array', () => {
    const operations = [{ op: 'add' as const, path: '/a', value: 'é' }];
    expect(
      Buffer.from(encodePatch(operations), 'base64').toString('utf8'),
    ).toBe('[{"op":"add","path":"/a","value":"é"}]');
    expect(encodePatch([])).toBe(Buffer.from('[]').toString('base64'));
  });
});

describe('patchProblem', () => {
  it('accepts a patch that applies, leaving the document alone', () => {
    const document = { metadata: {} };
    expect(
      patchProblem(document, [
        { op: 'add', path: '/metadata/annotations', value: {} },
        { op: 'add', path: '/metadata/annotations/a~1b', value: 'x' },
      ]),
    ).toBeUndefined();
    expect(document).toEqual({ metadata: {} });
  });

  it('says which operation fails and why, without dumping the document', () => {
    const problem = patchProblem({ spec: { containers: [] } }, [
      { op: 'add', path: '/spec/containers/0/resources/requests', value: {} },
    ]);
    expect(problem).toBe(
      'operation 0 (add /spec/containers/0/resources/requests): /spec/containers/0 does not exist',
    );
    expect(problem).not.toContain('\n');
  });

  it('reports prototype-polluting paths instead of throwing', () => {
    expect(
      patchProblem({ a: {} }, [{ op: 'add', path: '/a/__proto__', value: 1 }]),
    ).toMatch(/__proto__/);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

/**
 * Member names with and without RFC 6901's escapes, and array indexes (not "": the
 * library reads it as index 0, where the API server's patch library refuses it, as we do).
 */
const token = fc.constantFrom('a', 'b', 'a/b', '~c', '0', '1', '2', '-');
const leaf = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 3 }),
  fc.constant(null),
);
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(token, tie('json'), { maxKeys: 3 }),
  ),
}));
const addOperation: fc.Arbitrary<AddOperation> = fc.record({
  op: fc.constant('add' as const),
  path: fc
    .array(token, { maxLength: 4 })
    .map((tokens) => jsonPointer(...tokens)),
  value: json,
});

describe('withAdds', () => {
  it('applies add operations exactly as fast-json-patch does, and changes neither the document nor the values', () => {
    fc.assert(
      fc.property(
        fc.dictionary(token, json, { maxKeys: 4 }),
        fc.array(addOperation, { maxLength: 4 }),
        (document, operations) => {
          const before = structuredClone({ document, operations });
          let expected: { document: unknown } | undefined;
          try {
            expected = {
              document: jsonPatch.applyPatch(
                structuredClone(document),
                structuredClone(operations),
                true,
              ).newDocument,
            };
          } catch {
            expected = undefined;
          }
          const applied = withAdds(document, operations);
          // fast-json-patch is not strict-mode code: a write into a number or a string
          // silently does nothing there, where the API server refuses the patch, as we do.
          fc.pre(
            !('problem' in applied) ||
              !applied.problem.endsWith('is not an object or an array'),
          );
          if (expected === undefined) expect(applied).toHaveProperty('problem');
          else expect(applied).toEqual(expected);
          expect({ document, operations }).toEqual(before);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
