/**
 * The package entry (`hitl-relay`): the relay to embed in a Node process. Platform adapters are
 * their own entries (`hitl-relay/platforms/web`, `hitl-relay/platforms/telegram`, ...), and the
 * agent-side client is `hitl-relay/client`.
 */
export type {
  AdapterContext,
  HttpRoute,
  InboundRequest,
  InboundResponse,
  KeyValue,
  MessageRef,
  PlatformAdapter,
  Tap,
  TapReply,
} from './adapter.ts';
export { CORE_ENV_VARS, type RelayConfig, readConfig } from './config/config.ts';
export { PlatformError, ValidationError } from './errors.ts';
export { createLogger, type Logger } from './log.ts';
export { createRelay, type Relay, type RelayOptions } from './relay.ts';
export type { Card } from './render/card.ts';
export { openPostgresStore } from './store/postgres-store.ts';
export { openSqliteStore } from './store/sqlite-store.ts';
export type { Store } from './store/store.ts';
