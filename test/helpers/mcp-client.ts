/**
 * The official MCP SDK client against a real relay's /mcp (Streamable HTTP), with a JSON Schema
 * validator for tools' outputSchema (ajv, draft 2020-12: what the SDK advertises).
 */
import { createRequire } from 'node:module';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;

/** Which protocol revision the client speaks: 2026-07-28 (modern) or the 2025 `initialize` era. */
export type Era = 'modern' | 'legacy';

/** Connects an SDK client to `url` (…/mcp); `key` is sent as the bearer API key. */
export async function connectMcp(
  url: string,
  o: { era?: Era; key?: string; name?: string } = {},
): Promise<Client> {
  const client = new Client(
    { name: o.name ?? 'test-agent', version: '1.0.0' },
    o.era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const headers: Record<string, string> = o.key ? { authorization: `Bearer ${o.key}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

/** Validators of each tool's structuredContent, from the outputSchema tools/list advertises. */
export async function outputValidators(client: Client) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const { tools } = await client.listTools();
  const byName = new Map<string, ReturnType<typeof ajv.compile>>();
  for (const t of tools) if (t.outputSchema) byName.set(t.name, ajv.compile(t.outputSchema));
  return {
    tools,
    check: (name: string, value: unknown) => {
      const v = byName.get(name);
      if (!v) throw new Error(`tool ${name} has no outputSchema`);
      return v(value) ? null : JSON.stringify(v.errors);
    },
  };
}

/** Progress lines of one call, and the ask id its first line names. */
export function progressLines() {
  const lines: string[] = [];
  return {
    lines,
    onprogress: (p: { message?: string }) => {
      lines.push(String(p.message));
    },
    /** The ask id ("… (ask <id>) …" in the first line), or '' before it arrived. */
    askId: () => /\(ask ([^)]+)\)/.exec(lines[0] ?? '')?.[1] ?? '',
  };
}
