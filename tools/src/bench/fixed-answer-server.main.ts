// A bare `node:https` server that reads each request's body and answers it with the same
// fixed JSON bytes: the floor under a served figure, measured with the same load on the
// same cores (the webhook bench spawns it). Arguments: certificate file, key file, answer
// size in bytes. Prints `{"port":N}` once listening; stops on SIGTERM.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile, size] = process.argv.slice(2);
if (certFile === undefined || keyFile === undefined || size === undefined) {
  process.stderr.write(
    'usage: fixed-answer-server.main.js <cert file> <key file> <answer bytes>\n',
  );
  process.exit(2);
}
// A JSON string of the asked size: {"padding":"xxx…"}.
const answer = Buffer.from(
  `{"padding":"${'x'.repeat(Math.max(0, Number(size) - 14))}"}`,
);
const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile) },
  (request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': answer.length,
      });
      response.end(answer);
    });
  },
);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
