import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { loadKubeConfig } from './kubeconfig.js';
import { resolveKubeConfigSource } from './kubeconfig-source.js';

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';
const has =
  (...paths: string[]) =>
  (p: string) =>
    paths.includes(p);

describe('resolveKubeConfigSource', () => {
  const inCluster = {
    KUBERNETES_SERVICE_HOST: '10.0.0.1',
    KUBERNETES_SERVICE_PORT: '443',
  };

  it('prefers an explicit path over KUBECONFIG, in-cluster and home', () => {
    const exists = has('/x', '/env', `${SA}/token`, '/home/u/.kube/config');
    expect(
      resolveKubeConfigSource(
        {
          kubeconfigPath: '/x',
          env: { ...inCluster, KUBECONFIG: '/env' },
          homeDir: '/home/u',
        },
        exists,
      ),
    ).toEqual({ kind: 'files', origin: 'explicit', paths: ['/x'] });
  });

  it('fails precisely when the explicit path does not exist', () => {
    expect(() =>
      resolveKubeConfigSource({ kubeconfigPath: '/nope', env: {} }, has()),
    ).toThrow('kubeconfig file /nope (given explicitly) does not exist');
  });

  it('uses the existing files of KUBECONFIG before in-cluster', () => {
    const exists = has('/b', `${SA}/token`);
    expect(
      resolveKubeConfigSource(
        { env: { ...inCluster, KUBECONFIG: ['/a', '/b'].join(delimiter) } },
        exists,
      ),
    ).toEqual({ kind: 'files', origin: 'KUBECONFIG', paths: ['/b'] });
    expect(() =>
      resolveKubeConfigSource({ env: { KUBECONFIG: '/a' } }, has()),
    ).toThrow('KUBECONFIG is set to /a but none of its files exists');
  });

  it('uses the service account in a pod, before ~/.kube/config', () => {
    expect(
      resolveKubeConfigSource(
        { env: inCluster, homeDir: '/home/u' },
        has(`${SA}/token`, '/home/u/.kube/config'),
      ),
    ).toEqual({ kind: 'in-cluster', serviceAccountDir: SA });
  });

  it('falls back to ~/.kube/config', () => {
    expect(
      resolveKubeConfigSource(
        { env: {}, homeDir: '/home/u' },
        has('/home/u/.kube/config'),
      ),
    ).toEqual({
      kind: 'files',
      origin: 'home',
      paths: ['/home/u/.kube/config'],
    });
  });

  it('lists everything it tried when nothing works', () => {
    expect(() =>
      resolveKubeConfigSource({ env: inCluster, homeDir: '/home/u' }, has()),
    ).toThrow(
      `no Kubernetes configuration found; tried: KUBECONFIG (not set); in-cluster (no service account token at ${SA}/token); /home/u/.kube/config (does not exist)`,
    );
  });
});

describe('loadKubeConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-kube-'));
  const file = join(dir, 'config');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster: { server: https://one.example:6443 }
- name: two
  cluster: { server: https://two.example:6443 }
users:
- name: u
  user: { token: t }
contexts:
- name: first
  context: { cluster: one, user: u }
- name: second
  context: { cluster: two, user: u }
- name: broken
  context: { cluster: missing, user: u }
current-context: first
`,
  );

  it('loads the current context of an explicit file', () => {
    expect(
      loadKubeConfig({ kubeconfigPath: file, env: {} }).getCurrentCluster()
        ?.server,
    ).toBe('https://one.example:6443');
  });

  it('selects another context on request', () => {
    expect(
      loadKubeConfig({
        env: { KUBECONFIG: file },
        context: 'second',
      }).getCurrentCluster()?.server,
    ).toBe('https://two.example:6443');
  });

  it('names the known contexts when the requested one is missing', () => {
    expect(() =>
      loadKubeConfig({ kubeconfigPath: file, context: 'third' }),
    ).toThrow('context third is not in');
    expect(() =>
      loadKubeConfig({ kubeconfigPath: file, context: 'third' }),
    ).toThrow('known contexts: first, second, broken');
  });

  it('refuses a context whose cluster does not exist', () => {
    expect(() =>
      loadKubeConfig({ kubeconfigPath: file, context: 'broken' }),
    ).toThrow('the current context (broken)');
  });
});
