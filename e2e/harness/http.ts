import { request } from 'node:http';

/** A plain-HTTP GET of a local endpoint (ops servers, Prometheus): status and body. */
export function httpGet(
  url: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
