/**
 * A tool schema whose JSON Schema is converted once for the process. The SDK memoises the
 * conversion per registered tool, but the relay builds a fresh McpServer per HTTP request (no
 * session state, mcp/front.ts), so every `tools/call` converted its tool's input schema (for the
 * Mcp-Param header check) and output schema (for the result's projection) again: zod's
 * toJSONSchema was ~10 % of the relay's CPU per MCP ask (bench/mcp.ts --profile). The schemas are
 * built once (mcp/tools.ts); this memoises their `~standard.jsonSchema` answers per option set.
 * The answers are frozen, so a caller that tried to change a shared one would fail loudly.
 */
import type { z } from 'zod';

type JsonSchemaConverter = (options: { target: string }) => Record<string, unknown>;

/** Freezes `value` and everything in it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** One converter answering each distinct option set once. */
function once(convert: JsonSchemaConverter): JsonSchemaConverter {
  const made = new Map<string, Record<string, unknown>>();
  return (options) => {
    const key = JSON.stringify(options);
    let json = made.get(key);
    if (!json) {
      json = deepFreeze(convert(options));
      made.set(key, json);
    }
    return json;
  };
}

/** `schema` itself, its JSON Schema conversions memoised (validation is untouched). */
export function jsonSchemaOnce<T extends z.ZodType>(schema: T): T {
  const std = schema['~standard'] as T['~standard'] & {
    jsonSchema?: { input: JsonSchemaConverter; output: JsonSchemaConverter };
  };
  if (!std.jsonSchema) throw new Error('zod without ~standard.jsonSchema (needs zod >= 4.2)');
  const { input, output } = std.jsonSchema;
  const jsonSchema = { input: once(input), output: once(output) };
  (schema as { '~standard': unknown })['~standard'] = { ...std, jsonSchema };
  return schema;
}
