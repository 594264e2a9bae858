import { encodePatch, jsonPointer, patchProblem } from './json-patch.js';

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
    expect(problem).toMatch(
      /^OPERATION_PATH_CANNOT_ADD at operation 0 \(\/spec\/containers\/0\/resources\/requests\): /,
    );
    expect(problem).not.toContain('\n');
  });

  it('reports prototype-polluting paths instead of throwing', () => {
    expect(
      patchProblem({ a: {} }, [{ op: 'add', path: '/a/__proto__', value: 1 }]),
    ).toMatch(/banned/);
  });
});
