/**
 * The OpenAPI document is generated from code split over several modules; this snapshot holds it
 * byte for byte, so moving code between those modules cannot change what /openapi.json says. A
 * deliberate change to the document updates the file: `npx vitest run test/server/openapi-snapshot.test.ts -u`.
 */
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.ts';
import { openApiDocument } from '../../src/server/openapi.ts';

describe('/openapi.json snapshot', () => {
  it('is the same document, byte for byte, as the one in test/server/__snapshots__', async () => {
    const doc = openApiDocument({ config: readConfig({}), adapters: [] });
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/openapi.json.snap',
    );
  });

  it('follows the configured public URL and callback path', () => {
    const config = readConfig({
      PUBLIC_URL: 'https://relay.example/',
      CALLBACK_PATH: '/hooks/hitl',
    });
    const doc = openApiDocument({ config, adapters: [] }) as any;
    expect(doc.servers).toEqual([{ url: 'https://relay.example' }]);
    expect(doc.paths['/hooks/hitl'].post.operationId).toBe('receiveCallback');
    expect(doc.paths['/v1/callbacks/hitl']).toBeUndefined();
  });
});
