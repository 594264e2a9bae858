import { request, type RequestOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface HttpsResult {
  readonly status: number;
  readonly body: string;
  /** SHA-256 fingerprint of the certificate the server presented on this connection. */
  readonly fingerprint256: string;
}

/** One GET over HTTPS with the given TLS options (ca, servername, cert, key, agent). */
export function httpsGet(
  url: string,
  options: RequestOptions,
): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { ...options, method: 'GET' }, (response) => {
      const socket = response.socket as TLSSocket;
      const fingerprint256 = socket.getPeerCertificate().fingerprint256;
      const chunks: string[] = [];
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: chunks.join(''),
          fingerprint256,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
