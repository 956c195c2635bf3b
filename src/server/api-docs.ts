/**
 * GET /docs: the API reference, drawn in the browser by Swagger UI from the relay's own live
 * /openapi.json. Swagger UI's files come from the swagger-ui-dist package on disk and are served
 * by the relay under /docs/assets/, so the page loads nothing from outside the relay (its CSP says
 * so too): it works offline, and a reader's browser tells no third party what it reads.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';
import { ApiError } from './api-error.ts';
import { error, type Operation, type PathItem, pathParam, text } from './openapi-parts.ts';

/** The files of swagger-ui-dist the page uses, with their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Starts Swagger UI on the live document; relative URLs keep a reverse proxy's path prefix. */
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', location.href).href,
    dom_id: '#api',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hitl-relay API reference</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="api"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * Only the relay's own origin. Swagger UI sets style attributes and shows data: images, hence
 * 'unsafe-inline' for styles and data: for images; scripts are only the two files above.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where swagger-ui-dist is installed (resolved as an import would resolve it). */
function assetDir(): string {
  return fileURLToPath(new URL('.', import.meta.resolve('swagger-ui-dist/package.json')));
}

/** Mounts /docs, its start script and its assets. */
export function apiDocsRoutes(app: Hono): void {
  const cache = new Map<string, Buffer>();
  const page = (c: Context, body: string, type: string) =>
    c.body(body, 200, { 'content-type': type, 'content-security-policy': CSP });
  app.get('/docs', (c) => page(c, PAGE, 'text/html; charset=utf-8'));
  app.get('/docs/init.js', (c) => page(c, INIT, 'text/javascript; charset=utf-8'));
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new ApiError(404, 'not_found', `no asset ${file}`);
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = readFileSync(`${assetDir()}${file}`);
      cache.set(file, bytes);
    }
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=86400',
    });
  });
}

/** The OpenAPI entries of the routes above. */
export function apiDocsPaths(): Record<string, PathItem> {
  const op = (operationId: string, summary: string, ok: Operation) => ({
    get: { operationId, tags: ['operations'], summary, responses: { '200': ok } },
  });
  return {
    '/docs': op(
      'apiDocs',
      'This API reference, drawn by Swagger UI',
      text('The page.', 'text/html'),
    ),
    '/docs/init.js': op(
      'apiDocsInit',
      "The page's start script",
      text('JavaScript.', 'text/javascript'),
    ),
    '/docs/assets/{file}': {
      get: {
        operationId: 'apiDocsAsset',
        tags: ['operations'],
        summary:
          "One of Swagger UI's files (swagger-ui.css, swagger-ui-bundle.js, favicon-32x32.png)",
        parameters: [pathParam('file', 'The file name.')],
        responses: { '200': { description: 'The file.' }, '404': error('No such asset.') },
      },
    },
  };
}
