/**
 * `service_auth` on POST /v1/cases: the credentials the service wants on its watch endpoints
 * (spec 8: poll_url SHOULD accept the original call's auth; 8.5 sends it on events_url). Stored
 * sealed with the case's other secrets; sent only to poll_url / events_url of the case's origin.
 */
import { z } from 'zod';

/** Headers the relay sets itself, or that would change how a request is framed or routed. */
const RESERVED = new Set([
  'accept',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'host',
  'if-none-match',
  'keep-alive',
  'last-event-id',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'must be an HTTP header name')
  .refine((n) => !RESERVED.has(n.toLowerCase()), 'is set by the relay itself');
// Visible ASCII and spaces only: no CR/LF (header injection), nothing the wire cannot carry.
const headerValue = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

/** The intake field. */
export const serviceAuthSchema = z.strictObject({
  headers: z
    .record(headerName, headerValue)
    .refine((h) => Object.keys(h).length >= 1 && Object.keys(h).length <= 8, '1 to 8 headers')
    .meta({ minProperties: 1, maxProperties: 8 }),
});

/** The headers, names in lower case. */
export function serviceHeaders(auth: z.infer<typeof serviceAuthSchema>): Record<string, string> {
  return Object.fromEntries(Object.entries(auth.headers).map(([k, v]) => [k.toLowerCase(), v]));
}
