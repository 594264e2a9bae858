import { LoopStop } from './loop-stop.js';

describe('LoopStop', () => {
  it('sleeps for the time asked while running', async () => {
    const loop = new LoopStop();
    const start = performance.now();
    await loop.sleep(30);
    expect(performance.now() - start).toBeGreaterThanOrEqual(25);
    expect(loop.stopped).toBe(false);
  });

  it('ends a sleep in progress when stopped, and later sleeps at once', async () => {
    const loop = new LoopStop();
    const start = performance.now();
    const sleeping = loop.sleep(60_000);
    loop.stop();
    await sleeping;
    await loop.sleep(60_000);
    expect(loop.stopped).toBe(true);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
