/**
 * The body of POST /v1/cases: validated with this schema, and /openapi.json's IntakeRequest is
 * generated from it (the `.meta` descriptions are the documentation).
 */
import { z } from 'zod';
import { casePolicyInputSchema } from '../policy/case-policy.ts';
import { expiryWarningSchema } from '../policy/expiry-warning.ts';
import { serviceAuthSchema } from './service-auth.ts';

export const intakeSchema = z.strictObject({
  target: z.string().min(3).max(300).meta({ description: 'platform:address or route:name' }),
  // Either the service's whole 202 body or its bare hitl object (checked by the intake itself).
  response: z.unknown().optional(),
  hitl: z.unknown().optional(),
  notify_url: z.string().max(2048).optional().meta({
    format: 'uri',
    description: 'Receives the signed case view when the case ends (see webhooks).',
  }),
  notify_on: z.enum(['final', 'all']).optional().meta({ default: 'final' }),
  labels: z.record(z.string().max(64), z.string().max(256)).optional(),
  service_auth: serviceAuthSchema.optional().meta({
    description:
      "Credentials the service wants on its watch endpoints (spec 8: poll_url accepts the original call's auth), e.g. {headers: {Authorization: 'Bearer ...'}}. Stored sealed like submit_token; sent only to poll_url and events_url of the case's origin, never on a redirect, never shown or logged.",
  }),
  requested_by: z.string().min(1).max(200).optional().meta({
    description:
      'Who asked: an identity from RELAY_CONFIG `identities` or `platform:user`. An approval policy keeps them from approving their own request.',
  }),
  expiry_warning: expiryWarningSchema.optional().meta({
    description:
      'Warnings before this case expires, e.g. "15m", "1h,15m" or ["1h", "15m"] ("0": none), over the route\'s `expiry_warning` and EXPIRY_WARNING. Each threshold is one reply on every card, a history row and an `expiring` notify event; one already passed on arrival is dropped.',
  }),
  policy: casePolicyInputSchema.optional().meta({
    description:
      'The approval policy of this case: the name of a configured policy, or fields laid over the target\'s configured policy (e.g. {required: 3}). Taken only within what the route\'s `case_policy` allows: "stricter" (the default; as many approvals or more, approvers among the configured ones, approving actions and veto kept, the requester still kept from approving), "any" or "none". Otherwise 400 invalid_policy with the field that is weaker.',
  }),
});
