import { gunzipSync } from 'node:zlib';
import { encodedJson, encodeJson } from './encoded-json.js';

describe('encodeJson and encodedJson', () => {
  it('give the text as UTF-8 bytes and gzipped, encoding each text once', async () => {
    const text = JSON.stringify({ name: 'wéb', items: Array(500).fill('x') });
    const encoded = await encodeJson(text);
    expect(encoded.identity.toString('utf8')).toBe(text);
    expect(gunzipSync(encoded.gzip).toString('utf8')).toBe(text);
    expect(encoded.gzip.length).toBeLessThan(encoded.identity.length / 10);
    expect(encodedJson(text)).toBe(encoded);
    const other = encodedJson('{"other":true}');
    expect(other.identity.toString('utf8')).toBe('{"other":true}');
    expect(await encodeJson('{"other":true}')).toBe(other);
  });
});
