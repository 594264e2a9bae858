import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ROOT_CONTEXT,
  type Context,
  type ContextManager,
} from '@opentelemetry/api';

/**
 * An OpenTelemetry context manager on Node's AsyncLocalStorage: the active context
 * (and so the active span) follows `await`, timers and callbacks.
 *
 * `@opentelemetry/context-async-hooks` ships the same thing, but it is not a declared
 * dependency of this package; the part inSpan needs (`active` and `with`) is this small.
 * `bind` covers functions only (event emitters are not patched).
 */
export class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.call(thisArg, ...args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') {
      return target;
    }
    const storage = this.storage;
    const bound = function (this: unknown, ...args: unknown[]): unknown {
      return storage.run(context, () => target.apply(this, args));
    };
    return bound as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
