import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A loopback port whose connections go to the backends in turn. */
export interface RoundRobin {
  port: number;
  /** Connections sent to each backend port so far. */
  connections(): Map<number, number>;
  close(): Promise<void>;
}

/**
 * One address in front of several replicas, as a Service is: each new TCP connection goes
 * to the next of `backends()` (TLS passes through, so the client verifies the replica's
 * own certificate). Lets the API server call two webhook processes registered by one URL.
 */
export async function startRoundRobin(
  backends: () => readonly number[],
): Promise<RoundRobin> {
  const counts = new Map<number, number>();
  const sockets = new Set<Socket>();
  let turn = 0;
  const server = createServer((client) => {
    const ports = backends();
    const port = ports[turn++ % ports.length];
    if (port === undefined) {
      client.destroy();
      return;
    }
    counts.set(port, (counts.get(port) ?? 0) + 1);
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
