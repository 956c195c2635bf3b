import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'undici';
const srv = createServer((req, res) => { res.writeHead(304, { etag: '"x"' }); res.end(); });
await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(srv.address() as any).port}/x`;
const dispatcher = new Agent();
const s = new Session(); s.connect();
const sampling = { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true };
await s.post('HeapProfiler.startSampling', sampling);
const t0 = Date.now();
let n = 0;
async function one() {
  const r = await request(url, { dispatcher, headers: { 'if-none-match': '"x"' }, headersTimeout: 10000, bodyTimeout: 10000 }); await r.body.text();
  n++;
}
while (Date.now() - t0 < 10000) {
  const b = Date.now();
  await Promise.all(Array.from({ length: 16 }, one));
  const w = 5 - (Date.now() - b); if (w > 0) await new Promise((r) => setTimeout(r, w));
}
const { profile } = await s.post('HeapProfiler.stopSampling');
writeFileSync('/tmp/iso.heapprofile', JSON.stringify(profile));
console.log('requests', n);
process.exit(0);
