import type { WatchLike } from './list-watch-cache.js';

export interface FakeWatchCall {
  params: Record<string, unknown>;
  send: (phase: string, object: unknown) => void;
  end: (err: unknown) => void;
  aborted: boolean;
}

/** A scripted stand-in for client-node's Watch: each call is recorded and driven by the test. */
export class FakeWatch implements WatchLike {
  calls: FakeWatchCall[] = [];
  async watch(
    _path: string,
    params: Record<string, unknown>,
    callback: (phase: string, object: unknown) => void,
    done: (err: unknown) => void,
  ) {
    const call: FakeWatchCall = {
      params,
      send: (phase, object) => callback(phase, object),
      end: (err) => done(err),
      aborted: false,
    };
    this.calls.push(call);
    return { abort: () => void (call.aborted = true) };
  }
  get last(): FakeWatchCall {
    const call = this.calls.at(-1);
    if (call === undefined) throw new Error('no watch yet');
    return call;
  }
}
