/**
 * The asks service's discovery document (spec v0.9 Appendix D, `GET /.well-known/hitl.json`, valid
 * against schemas/v0.9/discovery-response.schema.json). It says only what the service does: the
 * review types asks are published as, polling, SSE and signed callbacks (`hitl_callback_url` on
 * `POST /v1/asks`, asks-service/callbacks.ts), inline submit, bearer authentication and no authentication profile (the
 * Agent Access profile is not implemented, so it is not advertised; `supports_agent_binding` false).
 * Absolute endpoint URLs only with PUBLIC_URL: a relay without it does not know its public origin,
 * and the Host header is not trusted to say it.
 */
import { ASKS_MOUNT_PATH } from './service.ts';

/** Every protocol type an ask is published as (asks/protocol.ts protocolOf). */
export const ASK_REVIEW_TYPES = [
  'approval',
  'selection',
  'input',
  'confirmation',
  'x-approval',
  'x-rank',
] as const;

/** What the document is drawn from. */
export interface DiscoveryInput {
  publicUrl: string | undefined;
  /** The Retry-After of an open case's poll, in seconds. */
  pollRetryAfterSeconds: number;
  defaultAskSeconds: number;
  maxAskSeconds: number;
  retentionMs: number | undefined;
}

const iso = (seconds: number) => `PT${seconds}S`;

/** The discovery document. */
export function discoveryDocument(o: DiscoveryInput): Record<string, unknown> {
  const base = o.publicUrl?.replace(/\/+$/, '');
  const reviews = base && `${base}${ASKS_MOUNT_PATH}/api/reviews`;
  return {
    hitl_protocol: {
      spec_version: '0.9',
      service: {
        name: 'hitl-relay asks',
        description:
          'Asks an agent sends to people in chats (POST /v1/asks), published as HITL review cases.',
        ...(base && { url: base }),
      },
      capabilities: {
        review_types: [...ASK_REVIEW_TYPES],
        transports: ['polling', 'sse', 'callback'],
        default_timeout: iso(o.defaultAskSeconds),
        max_timeout: iso(o.maxAskSeconds),
        supports_reminders: false,
        supports_multi_round: false,
        supports_signatures: false,
        supports_inline_submit: true,
        supports_agent_binding: false,
        supports_surface: false,
      },
      ...(reviews && {
        endpoints: {
          reviews_base: reviews,
          review_page_base: `${base}${ASKS_MOUNT_PATH}/review`,
          events_base: reviews,
        },
      }),
      authentication: {
        type: 'bearer',
        profiles: [],
        ...(base && { documentation: `${base}/docs` }),
      },
      rate_limits: { poll_recommended_interval_seconds: o.pollRetryAfterSeconds },
      ...(o.retentionMs && {
        policies: { data_retention_days: Math.round(o.retentionMs / 86_400_000) },
      }),
    },
  };
}
