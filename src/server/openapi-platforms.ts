/**
 * The enabled platforms' inbound routes in the OpenAPI document. What each route is comes from its
 * platform's definition (platforms/<name>/platform.ts, through the registry, as `docs`); what routes
 * exist comes from the running adapters.
 */

import type { PlatformAdapter } from '../adapter.ts';
import type { RouteDoc, RouteDocs, RouteResponseDoc } from '../adapter-definition.ts';
import {
  error,
  json,
  type Operation,
  type PathItem,
  pathParam,
  ref,
  text,
  toOpenApiPath,
} from './openapi-parts.ts';

/** Every inbound POST: the body limit and the body type rule of the relay's server. */
const POST_LIMITS = {
  '413': error('Body over 1 MB.'),
  '415': error('Not application/json (or a form, where the platform sends one).'),
};

/** One answer of a platform route as an OpenAPI response object. */
function responseOf(doc: RouteResponseDoc): Record<string, unknown> {
  if ('error' in doc) return error(doc.error);
  if ('json' in doc) return json(doc.json, doc.description);
  if ('jsonArrayOf' in doc)
    return {
      description: doc.description,
      content: { 'application/json': { schema: { type: 'array', items: ref(doc.jsonArrayOf) } } },
    };
  if ('text' in doc) return text(doc.text, doc.type);
  return { description: doc.description };
}

/** A platform route's description as an OpenAPI operation (without tags and parameters). */
function operationOf(doc: RouteDoc): Operation {
  const responses = Object.fromEntries(
    Object.entries(doc.responses).map(([status, r]) => [status, responseOf(r)]),
  );
  return {
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    ...(doc.body
      ? { requestBody: { required: true, ...json(doc.body.json, doc.body.description) } }
      : {}),
    responses,
  };
}

/** The documented inbound routes of the enabled adapters; `docs` is keyed by platform. */
export function platformPaths(
  adapters: PlatformAdapter[],
  docs: Readonly<Record<string, RouteDocs>>,
): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const a of adapters)
    for (const r of a.routes) {
      const table = docs[a.platform] ?? {};
      const doc = table[`${r.method} ${r.path}`] ?? table[`${r.method} *`];
      if (!doc) continue;
      const { responses, ...op } = operationOf(doc);
      const params = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => pathParam(m[1]!, ''));
      const path = toOpenApiPath(r.path);
      out[path] ??= {};
      out[path][r.method.toLowerCase()] = {
        tags: [`platform: ${a.platform}`],
        ...(params.length ? { parameters: params } : {}),
        ...op,
        responses: r.method === 'POST' ? { ...(responses as object), ...POST_LIMITS } : responses,
      };
    }
  return out;
}
