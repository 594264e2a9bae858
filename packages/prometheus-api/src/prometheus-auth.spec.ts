import { authorizationHeader } from './prometheus-auth.js';

const NONE = { bearerToken: '', username: '', password: '' };
const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('authorizationHeader', () => {
  it('sends nothing without credentials', () =>
    expect(authorizationHeader(NONE, {})).toBeUndefined());

  it('prefers the bearer token over basic auth from flags and environment', () =>
    expect(
      authorizationHeader(
        { bearerToken: 't0ken', username: 'u', password: 'p' },
        { PROMETHEUS_USERNAME: 'eu', PROMETHEUS_PASSWORD: 'ep' },
      ),
    ).toBe('Bearer t0ken'));

  it('prefers --username/--password over the environment', () =>
    expect(
      authorizationHeader(
        { ...NONE, username: 'u', password: 'p:w' },
        { PROMETHEUS_USERNAME: 'eu', PROMETHEUS_PASSWORD: 'ep' },
      ),
    ).toBe(basic('u:p:w')));

  it('falls back to PROMETHEUS_USERNAME/PROMETHEUS_PASSWORD when a flag is missing', () =>
    expect(
      authorizationHeader(
        { ...NONE, username: 'u' },
        { PROMETHEUS_USERNAME: 'eu', PROMETHEUS_PASSWORD: 'ep' },
      ),
    ).toBe(basic('eu:ep')));

  it('needs both a user name and a password', () =>
    expect(
      authorizationHeader(
        { ...NONE, password: 'p' },
        { PROMETHEUS_USERNAME: 'eu' },
      ),
    ).toBeUndefined());
});
