import { isAdmissionStatusFresh } from './admission-status.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('isAdmissionStatusFresh', () => {
  it('trusts a Lease renewed within the timeout', () => {
    expect(
      isAdmissionStatusFresh(
        {
          metadata: { creationTimestamp: ago(3_600_000) },
          spec: { renewTime: ago(59_999) },
        },
        NOW,
        60_000,
      ),
    ).toBe(true);
  });

  it('trusts a Lease created within the timeout, even never renewed', () => {
    expect(
      isAdmissionStatusFresh(
        { metadata: { creationTimestamp: new Date(NOW - 1_000) } },
        NOW,
        60_000,
      ),
    ).toBe(true);
  });

  it('refuses a stale, missing or unreadable Lease', () => {
    const stale = {
      metadata: { creationTimestamp: ago(3_600_000) },
      spec: { renewTime: ago(60_000) },
    };
    expect(isAdmissionStatusFresh(stale, NOW, 60_000)).toBe(false);
    expect(isAdmissionStatusFresh(undefined, NOW, 60_000)).toBe(false);
    expect(
      isAdmissionStatusFresh({ spec: { renewTime: 'soon' } }, NOW, 60_000),
    ).toBe(false);
  });
});
