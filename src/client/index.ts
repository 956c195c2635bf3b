/**
 * hitl-relay/client: catch HITL 202s in an agent's HTTP client (fetch wrapper, undici interceptor),
 * talk to the relay (RelayClient), read outcomes as approvals, and verify notify_url webhooks.
 */

export type { NotifySignatureCheck, NotifySignatureFailure } from '../protocol/notify-signature.ts';
export {
  deriveNotifySecret,
  NOTIFY_ATTEMPT_HEADER,
  NOTIFY_DELIVERY_HEADER,
  NOTIFY_EVENT_HEADER,
  NOTIFY_SIGNATURE_HEADER,
  NOTIFY_TIMESTAMP_HEADER,
  NOTIFY_TOLERANCE_SECONDS,
  signNotify,
  verifyNotifySignature,
} from '../protocol/notify-signature.ts';
export type {
  AnswerByKind,
  AnswerOf,
  ApprovalDecisionView,
  AskAnswer,
  AskContentInput,
  AskKind,
  AskOptions,
  AskOutcome,
  TimeoutPolicy,
} from './ask.ts';
export type { HitlCatchOptions, HitlRelayOptions } from './catch.ts';
export { relayHitl, TARGET_HEADER } from './catch.ts';
export type { HitlFetch, HitlFetchOptions, HitlRequestInit, HitlResponse } from './fetch.ts';
export { createHitlFetch } from './fetch.ts';
export type { HitlInterceptorOptions } from './interceptor.ts';
export { hitlInterceptor, OUTCOME_KEY } from './interceptor.ts';
export type { ApprovalView, HitlOutcome } from './outcome.ts';
export { approvalOf, endedByPolicy, outcomeOf, timeoutPolicyOf } from './outcome.ts';
export type { RelayClientOptions, SendCaseInput } from './relay-client.ts';
export { RelayClient, RelayError } from './relay-client.ts';
export type {
  CaseMessageView,
  CaseResult,
  CaseStatus,
  CaseView,
  FieldIssue,
  Progress,
  RespondedBy,
  SubmittedBy,
} from './types.ts';
