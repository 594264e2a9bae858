import { randomBytes } from 'node:crypto';
import { kubeClients, type KubeClients } from './kube.ts';

/**
 * A fresh namespace per suite keeps suites independent on one shared cluster. Deletion
 * is asynchronous (the namespace controller finalizes it); nothing waits for it.
 */
export async function createTestNamespace(
  kube: KubeClients,
  prefix: string,
): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await kube.core.createNamespace({
    body: { metadata: { name, labels: { 'tandem.dev/e2e': 'true' } } },
  });
  return name;
}

export async function deleteTestNamespace(
  kube: KubeClients,
  name: string,
): Promise<void> {
  await kube.core.deleteNamespace({ name });
}

/**
 * The usual suite set-up: API clients, and a namespace of its own created before the
 * suite's tests and deleted after them. Call at the top of a spec file or describe block.
 */
export function useTestNamespace(prefix: string): {
  kube: KubeClients;
  namespace: () => string;
} {
  const kube = kubeClients();
  let name: string | undefined;
  beforeAll(async () => {
    name = await createTestNamespace(kube, prefix);
  });
  afterAll(async () => {
    if (name !== undefined) await deleteTestNamespace(kube, name);
  });
  return {
    kube,
    namespace: () => {
      if (name === undefined)
        throw new Error(
          `the ${prefix} namespace is used before beforeAll created it`,
        );
      return name;
    },
  };
}
