/**
 * The open asks as MCP resources (`hitl://asks/{id}`): a client lists what it is waiting for and
 * reads one ask (its question, where it was posted, its status and answer so far). The relay has one
 * API key, so "this key's asks" are the relay's open asks.
 */
import {
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { askContentOf, kindOf } from '../asks/content.ts';
import type { StoredCase } from '../store/types.ts';
import { outcomeOf } from './outcome.ts';
import type { McpCall } from './tools.ts';

/** The URI of an ask's resource. */
export const askUri = (id: string) => `hitl://asks/${encodeURIComponent(id)}`;

/** How many open asks a list names at most. */
const LIST_LIMIT = 500;

/** The resource body of an ask. */
function askDocument(call: McpCall, c: StoredCase) {
  const content = askContentOf(c.doc.hitl.context);
  return {
    ...outcomeOf(c, content ? kindOf(content) : 'unknown', call.origin),
    prompt: c.doc.hitl.prompt,
    content: content ?? null,
    expires_at: c.doc.hitl.expires_at,
    created_at: new Date(c.created_at).toISOString(),
  };
}

/**
 * The template of the ask resources, one per relay: it holds only the relay (its list reads the
 * store), and parsing its URI template for every HTTP request (a fresh server each, mcp/front.ts)
 * was part of the MCP front's cost per call. The SDK only reads a registered template.
 */
const templates = new WeakMap<McpCall['relay'], ResourceTemplate>();

function templateOf(relay: McpCall['relay']): ResourceTemplate {
  let template = templates.get(relay);
  if (template) return template;
  template = new ResourceTemplate('hitl://asks/{id}', {
    list: async () => {
      const open = await relay.store.listCases({ open: true, limit: LIST_LIMIT });
      return {
        resources: open
          .filter((c) => askContentOf(c.doc.hitl.context))
          .map((c) => ({
            uri: askUri(c.id),
            name: `ask ${c.id}`,
            title: c.doc.hitl.prompt.slice(0, 120),
            description: `${c.status} in ${c.target}`,
            mimeType: 'application/json',
          })),
      };
    },
  });
  templates.set(relay, template);
  return template;
}

/** Registers the ask resources on `server`. */
export function registerAskResources(server: McpServer, call: McpCall): void {
  const template = templateOf(call.relay);
  server.registerResource(
    'ask',
    template,
    {
      title: 'An ask',
      description: 'An ask of this relay: question, status, answer',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables.id));
      const found = await call.relay.store.getCase(id);
      if (!found || !askContentOf(found.doc.hitl.context))
        throw new ResourceNotFoundError(uri.href, `no ask ${uri.href}`);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(askDocument(call, found)),
          },
        ],
      };
    },
  );
}
