import { parseWebhookLabels } from './webhook-labels.js';

describe('parseWebhookLabels', () => {
  it.each([
    ['', {}],
    ['""', {}],
    ['team:autoscaling', { team: 'autoscaling' }],
    [
      ' a : 1 , example.com/b:two,c:',
      { a: '1', 'example.com/b': 'two', c: '' },
    ],
    ['"k1:v1,k2:v2"', { k1: 'v1', k2: 'v2' }],
    ['a:x,a:y', { a: 'y' }],
  ])('%j → %j', (flag, labels) => {
    expect(parseWebhookLabels(flag)).toEqual(labels);
  });

  it.each([
    [
      'team',
      '--webhook-labels: "team" is not key:value (expected "key1:value1,key2:value2")',
    ],
    [
      'a:1,',
      '--webhook-labels: "" is not key:value (expected "key1:value1,key2:value2")',
    ],
    [
      ' :v',
      '--webhook-labels: " :v" is not key:value (expected "key1:value1,key2:value2")',
    ],
    [
      'a:b:c',
      "--webhook-labels: \"a:b:c\": label value \"b:c\" must be empty or at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
    ],
    [
      'Bad_Prefix/x:1',
      '--webhook-labels: "Bad_Prefix/x:1": label key "Bad_Prefix/x": prefix must be a DNS subdomain (lower-case alphanumerics, \'-\' and \'.\', at most 253 characters)',
    ],
  ])('refuses %j', (flag, message) => {
    expect(() => parseWebhookLabels(flag)).toThrow(message);
  });
});
