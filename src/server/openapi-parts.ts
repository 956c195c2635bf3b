/** Building blocks of the OpenAPI document. */
import { z } from 'zod';
import { EXAMPLES } from './openapi-examples.ts';

/** One operation object. */
export type Operation = Record<string, unknown>;
/** One path item. */
export type PathItem = Record<string, Operation>;

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a zod schema: the documentation of a body
 * comes from the schema that validates it. Refinements cannot be expressed and are left out.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/** What every route behind RELAY_API_KEY says about it. */
export const AUTH_NOTE =
  ' Needs `Authorization: Bearer <RELAY_API_KEY>` when the relay has an API key.';
/** The security requirement of a route behind RELAY_API_KEY. */
export const secured = [{ apiKey: [] }];
/** The relay case id as a path parameter. */
export const caseIdParam = () => pathParam('id', 'The relay case id (hc_...).');

/** A reference to a component schema. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A JSON body of a component schema, with its example when there is one. */
export const json = (schema: string, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: ref(schema),
      ...(schema in EXAMPLES
        ? { examples: { example: { value: EXAMPLES[schema as keyof typeof EXAMPLES] } } }
        : {}),
    },
  },
});
/** An error answer. */
export const error = (description: string) => json('Error', description);
/** A path parameter. */
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});
/** A text answer. */
export const text = (description: string, type = 'text/plain') => ({
  description,
  content: { [type]: { schema: { type: 'string' } } },
});
/** Hono's `:name` path segments as OpenAPI's `{name}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
