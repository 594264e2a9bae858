import {
  isRoutedElsewhere,
  routedElsewhereMessage,
  routedTo,
} from './apiservice-route.js';

const own = 'tandem-metrics-adapter.tandem-system.svc';
const ours = {
  service: {
    name: 'tandem-metrics-adapter',
    namespace: 'tandem-system',
    port: 443,
  },
};
const prometheusAdapter = {
  service: { name: 'prometheus-adapter', namespace: 'monitoring', port: 6443 },
};

describe('APIService routes', () => {
  it('names the Service URL, port 443 when unset', () => {
    expect(routedTo(prometheusAdapter)).toBe(
      'https://prometheus-adapter.monitoring.svc:6443',
    );
    expect(routedTo({ service: { name: 'a', namespace: 'b' } })).toBe(
      'https://a.b.svc:443',
    );
    expect(routedTo({})).toBeUndefined();
    expect(routedTo(undefined)).toBeUndefined();
  });

  it('tells another provider’s APIService from this adapter’s', () => {
    expect(isRoutedElsewhere(ours, own)).toBe(false);
    expect(
      isRoutedElsewhere({ service: { ...ours.service, port: 6443 } }, own),
    ).toBe(false);
    expect(isRoutedElsewhere(prometheusAdapter, own)).toBe(true);
    expect(isRoutedElsewhere({}, own)).toBe(false);
  });

  it('gives the remedy with the provider’s URL', () => {
    expect(
      routedElsewhereMessage(
        'v1beta1.custom.metrics.k8s.io',
        prometheusAdapter,
        own,
      ),
    ).toContain(
      'install with deploy/upstream-provider (--upstream-provider=https://prometheus-adapter.monitoring.svc:6443',
    );
  });
});
