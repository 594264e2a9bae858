import { parseEnvLines, requireEnvValue } from './env-file.ts';

describe('parseEnvLines', () => {
  it('reads KEY=VALUE lines, skipping blanks and comments', () => {
    const values = parseEnvLines(
      '# state\nKUBECONFIG=/tmp/a/kubeconfig\n\nTANDEM_CP_PORT=6443\nEMPTY=\n',
    );
    expect([...values]).toEqual([
      ['KUBECONFIG', '/tmp/a/kubeconfig'],
      ['TANDEM_CP_PORT', '6443'],
      ['EMPTY', ''],
    ]);
  });

  it('keeps = signs inside values', () => {
    expect(parseEnvLines('ARGS=--a=b').get('ARGS')).toBe('--a=b');
  });

  it('rejects noise with its line number', () => {
    expect(() => parseEnvLines('A=1\nstarting etcd...')).toThrow(
      'line 2 is not KEY=VALUE: "starting etcd..."',
    );
  });

  it('names a missing or empty key', () => {
    expect(() => requireEnvValue(parseEnvLines('EMPTY='), 'EMPTY')).toThrow(
      'the control plane did not report EMPTY',
    );
    expect(() => requireEnvValue(new Map(), 'KUBECONFIG')).toThrow(
      'did not report KUBECONFIG',
    );
  });
});
