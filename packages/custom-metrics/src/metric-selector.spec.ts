import { containerFromMetricSelector } from './metric-selector.js';

describe('containerFromMetricSelector', () => {
  it.each([undefined, '', '  '])('reads %j as every container', (text) => {
    expect(containerFromMetricSelector(text)).toEqual({});
  });

  it.each([
    'container=app',
    'container==app',
    'container in (app)',
    ' container = app ',
  ])('reads %j as the container app', (text) => {
    expect(containerFromMetricSelector(text)).toEqual({ container: 'app' });
  });

  it.each([
    'app=web',
    'container!=app',
    'container notin (app)',
    'container in (app,envoy)',
    'container=app,app=web',
    'container=app,container=envoy',
    'container',
    '!container',
    'container=',
  ])('refuses %j', (text) => {
    const result = containerFromMetricSelector(text);
    expect(result).toEqual({
      error: expect.stringMatching(
        /^metricLabelSelector supports only container=<name>/,
      ),
    });
    expect((result as { error: string }).error).toContain(JSON.stringify(text));
  });

  it.each([
    'container=app=x',
    'container>1',
    'container in (a',
    'container in ()',
  ])('reports the parse error of %j', (text) => {
    expect(containerFromMetricSelector(text)).toEqual({
      error: expect.stringMatching(
        /^metricLabelSelector: invalid label selector: /,
      ),
    });
  });
});
