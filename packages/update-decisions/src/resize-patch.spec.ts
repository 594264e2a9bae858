import {
  inPlaceResizePatch,
  inPlaceUpdatedAnnotationPatch,
} from './resize-patch.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';

describe('inPlaceResizePatch (§5.6 patch)', () => {
  it('sets capped requests and limits in the original ratio, by resource name', () => {
    const pod = podWith([
      container(
        'app',
        { cpu: '1', memory: '1Gi' },
        { cpu: '2', memory: '2Gi' },
      ),
    ]);
    const vpa = vpaWith([entry('app', { memory: '512Mi', cpu: '3' })], {
      mode: 'InPlaceOrRecreate',
      policies: [{ containerName: 'app', maxAllowed: { cpu: '2' } }],
    });
    expect(inPlaceResizePatch(pod, vpa)).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/cpu',
        value: '2',
      },
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/memory',
        value: '512Mi',
      },
      {
        op: 'add',
        path: '/spec/containers/0/resources/limits/cpu',
        value: '4',
      },
      {
        op: 'add',
        path: '/spec/containers/0/resources/limits/memory',
        value: '1Gi',
      },
    ]);
  });

  it('leaves limits alone with RequestsOnly', () => {
    const pod = podWith([container('app', { cpu: '1' }, { cpu: '2' })]);
    const vpa = vpaWith([entry('app', { cpu: '500m' })], {
      policies: [{ containerName: 'app', controlledValues: 'RequestsOnly' }],
    });
    expect(inPlaceResizePatch(pod, vpa)).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/cpu',
        value: '500m',
      },
    ]);
  });

  it('adds missing resources objects and escapes resource names', () => {
    const pod = podWith([container('sidecar'), { name: 'app' }]);
    const vpa = vpaWith([entry('app', { 'example.com/widgets': '2' })], {
      policies: [
        { containerName: '*', controlledResources: ['example.com/widgets'] },
      ],
    });
    expect(inPlaceResizePatch(pod, vpa)).toEqual([
      { op: 'add', path: '/spec/containers/1/resources', value: {} },
      { op: 'add', path: '/spec/containers/1/resources/requests', value: {} },
      {
        op: 'add',
        path: '/spec/containers/1/resources/requests/example.com~1widgets',
        value: '2',
      },
    ]);
  });

  it('skips containers in mode Off, uncontrolled resources and boosted containers', () => {
    const pod = podWith(
      [
        container('app', { cpu: '1', memory: '1Gi' }),
        container('proxy', { cpu: '1' }),
        container('boosted', { cpu: '1' }),
      ],
      { annotations: { 'vpaCpuStartupBoost/boosted': '{}' } },
    );
    const vpa = vpaWith(
      [
        entry('app', { cpu: '2', memory: '2Gi' }),
        entry('proxy', { cpu: '2' }),
        entry('boosted', { cpu: '2' }),
      ],
      {
        policies: [
          { containerName: 'app', controlledResources: ['memory'] },
          { containerName: 'proxy', mode: 'Off' },
        ],
      },
    );
    expect(inPlaceResizePatch(pod, vpa)).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/memory',
        value: '2Gi',
      },
    ]);
  });

  it('is empty without a recommendation', () => {
    expect(
      inPlaceResizePatch(podWith([container('app')]), vpaWith(undefined)),
    ).toEqual([]);
  });
});

describe('inPlaceUpdatedAnnotationPatch', () => {
  it('marks the pod, adding the annotations map where missing', () => {
    expect(inPlaceUpdatedAnnotationPatch(podWith([container('app')]))).toEqual([
      { op: 'add', path: '/metadata/annotations', value: {} },
      {
        op: 'add',
        path: '/metadata/annotations/vpaInPlaceUpdated',
        value: 'true',
      },
    ]);
    expect(
      inPlaceUpdatedAnnotationPatch(
        podWith([container('app')], { annotations: { a: 'b' } }),
      ),
    ).toEqual([
      {
        op: 'add',
        path: '/metadata/annotations/vpaInPlaceUpdated',
        value: 'true',
      },
    ]);
  });
});
