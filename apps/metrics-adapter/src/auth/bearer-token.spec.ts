import { bearerToken } from './bearer-token.js';

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['Bearer abc def', 'abc'],
    ['Bearer ', undefined],
    ['Bearer', undefined],
    ['Basic dXNlcjpwYXNz', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
