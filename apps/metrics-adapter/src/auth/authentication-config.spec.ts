import { parseAuthenticationConfig } from './authentication-config.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n';
const FRONT_PROXY_CA =
  '-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n';

/** What kube-apiserver writes on a kubeadm cluster. */
const kubeadm = {
  'client-ca-file': CA,
  'requestheader-allowed-names': '["front-proxy-client"]',
  'requestheader-client-ca-file': FRONT_PROXY_CA,
  'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  'requestheader-group-headers': '["X-Remote-Group"]',
  'requestheader-username-headers': '["X-Remote-User"]',
};

describe('parseAuthenticationConfig', () => {
  it('reads the kubeadm defaults', () => {
    expect(parseAuthenticationConfig(kubeadm)).toEqual({
      clientCaPem: CA,
      requestheaderCaPem: FRONT_PROXY_CA,
      allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'],
      uidHeaders: [],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
    });
  });

  it('reads the uid headers of newer clusters and several names per key', () => {
    const config = parseAuthenticationConfig({
      ...kubeadm,
      'requestheader-uid-headers': '["X-Remote-Uid"]',
      'requestheader-allowed-names': '["front-proxy-client","aggregator"]',
    });
    expect(config).toMatchObject({
      uidHeaders: ['X-Remote-Uid'],
      allowedNames: ['front-proxy-client', 'aggregator'],
    });
  });

  it('treats missing, empty and null lists as empty, as Go does', () => {
    const config = parseAuthenticationConfig({
      'client-ca-file': CA,
      'requestheader-allowed-names': '[]',
      'requestheader-group-headers': 'null',
      'requestheader-username-headers': '',
    });
    expect(config).toEqual({
      clientCaPem: CA,
      requestheaderCaPem: undefined,
      allowedNames: [],
      usernameHeaders: [],
      uidHeaders: [],
      groupHeaders: [],
      extraHeaderPrefixes: [],
    });
  });

  it('treats a blank CA as absent', () => {
    const config = parseAuthenticationConfig({
      ...kubeadm,
      'requestheader-client-ca-file': '  \n',
    });
    expect(config).toMatchObject({ requestheaderCaPem: undefined });
  });

  it.each([
    [
      'requestheader-allowed-names',
      'front-proxy-client',
      /requestheader-allowed-names: not a JSON array of strings \(.*\): "front-proxy-client"/,
    ],
    [
      'requestheader-group-headers',
      '{"a":1}',
      /requestheader-group-headers: not a JSON array of strings: "\{\\"a\\":1\}"/,
    ],
    [
      'requestheader-username-headers',
      '["X-Remote-User", 7]',
      /requestheader-username-headers: item 1 is 7, not a string/,
    ],
  ])('rejects a malformed %s naming the key', (key, value, message) => {
    const result = parseAuthenticationConfig({ ...kubeadm, [key]: value });
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toMatch(message);
    expect((result as Error).message).toContain(
      'kube-system/extension-apiserver-authentication',
    );
  });

  it('rejects a ConfigMap without data', () => {
    expect(parseAuthenticationConfig(undefined)).toEqual(
      new Error(
        'ConfigMap kube-system/extension-apiserver-authentication has no data',
      ),
    );
  });
});
