import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { findWorkspaceRoot } from './workspace-root.js';

// The kind path cannot run on machines without Docker, so its files are checked
// statically here, on every `npm test`: schema-valid workflows, a cluster pinned to the
// local control plane's Kubernetes minor, and stage files both paths can apply.
const root = findWorkspaceRoot();
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the kind path', () => {
  const workflows = readdirSync(join(root, '.github', 'workflows')).filter(
    (file) => /\.ya?ml$/.test(file),
  );

  it.each(workflows)(
    'workflow %s passes the GitHub Actions schema (action-validator)',
    (file) => {
      const result = spawnSync(
        join(root, 'node_modules', '.bin', 'action-validator'),
        [join(root, '.github', 'workflows', file)],
        {
          encoding: 'utf8',
        },
      );
      expect({
        status: result.status,
        errors: result.stdout + result.stderr,
      }).toEqual({ status: 0, errors: '' });
    },
  );

  it('pins kind to the Kubernetes minor of the local control plane, with in-place resize on', () => {
    const pinned = /TANDEM_K8S_VERSION:=v(\d+\.\d+)\.\d+/.exec(
      read('e2e/control-plane/common.sh'),
    )?.[1];
    const cluster = parse(read('e2e/kind/cluster.yaml')) as {
      kind: string;
      apiVersion: string;
      featureGates: Record<string, boolean>;
      nodes: { image: string }[];
    };
    expect(cluster).toMatchObject({
      kind: 'Cluster',
      apiVersion: 'kind.x-k8s.io/v1alpha4',
    });
    expect(cluster.featureGates['InPlacePodVerticalScaling']).toBe(true);
    expect(pinned).toBeDefined();
    for (const node of cluster.nodes)
      expect(node.image).toMatch(
        new RegExp(`^kindest/node:v${pinned?.replace('.', '\\.')}\\.\\d+$`),
      );
  });

  it('applies only kwok objects from the shared stage directory, all parseable', () => {
    const directory = join(root, 'e2e', 'control-plane', 'kwok');
    for (const file of readdirSync(directory)) {
      for (const document of parseAllDocuments(
        readFileSync(join(directory, file), 'utf8'),
      )) {
        expect({ file, errors: document.errors.map(String) }).toEqual({
          file,
          errors: [],
        });
        expect((document.toJS() as { apiVersion: string }).apiVersion).toMatch(
          /^kwok\.x-k8s\.io\//,
        );
      }
    }
  });

  it('calls only scripts that exist', () => {
    const script = read('e2e/kind/run.sh');
    for (const [, path] of script.matchAll(/"\$ROOT\/([^"$]+\.sh)"/g))
      expect(existsSync(join(root, path ?? ''))).toBe(true);
  });
});
