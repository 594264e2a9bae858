import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from './context-manager.js';

const KEY = createContextKey('test');

describe('AsyncLocalStorageContextManager', () => {
  const manager = new AsyncLocalStorageContextManager();

  it('is ROOT_CONTEXT outside any with()', () => {
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('keeps the context across await and timers, and restores it afterwards', async () => {
    const ctx = ROOT_CONTEXT.setValue(KEY, 'cycle');
    const seen = await manager.with(ctx, async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      return manager.active().getValue(KEY);
    });
    expect(seen).toBe('cycle');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('passes this and arguments through with()', () => {
    const target = { factor: 2 };
    const result = manager.with(
      ROOT_CONTEXT,
      function (this: typeof target, a: number, b: number) {
        return this.factor * (a + b);
      },
      target,
      3,
      4,
    );
    expect(result).toBe(14);
  });

  it('binds functions to a context and leaves other values alone', () => {
    const ctx = ROOT_CONTEXT.setValue(KEY, 'bound');
    const bound = manager.bind(
      ctx,
      (suffix: string) => `${String(manager.active().getValue(KEY))}${suffix}`,
    );
    expect(bound('!')).toBe('bound!');
    const plain = { not: 'a function' };
    expect(manager.bind(ctx, plain)).toBe(plain);
  });
});
