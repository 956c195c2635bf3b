/** Example bodies of the OpenAPI document (a test validates each against its schema). */

const HITL_EXAMPLE = {
  spec_version: '0.8',
  case_id: 'review_7f3a9c',
  review_url: 'https://api.service.example/review/review_7f3a9c?token=K7xR2mN4pQ8sT1vW3xY5zA9bC7dE',
  poll_url: 'https://api.service.example/api/reviews/review_7f3a9c/status',
  submit_url: 'https://api.service.example/reviews/review_7f3a9c/respond',
  submit_token: 'sbt_9f8e7d6c5b4a3210fedcba9876543210',
  inline_actions: ['approve', 'reject'],
  type: 'approval',
  prompt: 'Deploy v2.4.0 to production?',
  created_at: '2026-03-01T10:00:00Z',
  expires_at: '2026-03-02T10:00:00Z',
};

const CASE_EXAMPLE = {
  id: 'hc_Hq3yX2m9LrT0aBcD',
  case_id: 'review_7f3a9c',
  service: 'https://api.service.example',
  target: 'web:lobby',
  type: 'approval',
  prompt: 'Deploy v2.4.0 to production?',
  status: 'completed',
  final: true,
  result: { action: 'approve', data: {} },
  submitted_by: { platform: 'x-web', platform_user_id: 'ann', display_name: 'Ann' },
  responded_by: null,
  submission_context: {
    mode: 'inline_submit',
    submitted_via: 'x-web_button',
    submitted_by: { platform: 'x-web', platform_user_id: 'ann', display_name: 'Ann' },
  },
  verification_result: null,
  confirmed: true,
  unconfirmed_reason: null,
  watch: { state: 'ok', last_error: null, since: '2026-03-01T10:00:00.512Z' },
  progress: null,
  default_action: null,
  reason: null,
  status_at: '2026-03-01T10:04:12Z',
  review_link: { state: 'kept', at: '2026-03-02T10:00:00.000Z' },
  expires_at: '2026-03-02T10:00:00Z',
  previous_id: null,
  next_id: null,
  next_case_id: null,
  labels: { run: 'deploy-42' },
  warnings: [],
  created_at: '2026-03-01T10:00:01.120Z',
  updated_at: '2026-03-01T10:04:12.480Z',
  delivery: { state: 'delivered', reason: null },
  messages: [
    {
      target: 'web:lobby',
      state: 'posted',
      current: true,
      error: null,
      posted_at: '2026-03-01T10:00:01.200Z',
    },
  ],
};

const WEB_MESSAGE_EXAMPLE = {
  id: 'kQ2m7x1ZpA0',
  case: 'hc_Hq3yX2m9LrT0aBcD',
  reply_to: null,
  text: 'Approval\nDeploy v2.4.0 to production?\nApproved by Ann',
  title: 'Approval',
  prompt: 'Deploy v2.4.0 to production?',
  lines: [],
  hint: null,
  actions: [],
  link: { label: 'Details', url: 'https://relay.example/r/k3Yt9a/2bX0c8R1dQ4eT7uV9wZ1aB' },
  status: 'Approved by Ann',
  final: true,
};

/** Examples, keyed by the schema they must validate against (a test checks that they do). */
export const EXAMPLES = {
  IntakeRequest: {
    target: 'web:lobby',
    response: {
      status: 'human_input_required',
      message: 'A deployment needs approval.',
      hitl: HITL_EXAMPLE,
    },
    notify_url: 'https://agent.example/hooks/hitl',
    labels: { run: 'deploy-42' },
    service_auth: { headers: { Authorization: 'Bearer sk_live_agent_key_for_the_service' } },
  },
  CaseView: CASE_EXAMPLE,
  CaseList: { cases: [CASE_EXAMPLE] },
  Error: {
    error: 'invalid_hitl',
    message: 'invalid hitl object: response.hitl.poll_url must be an absolute http(s) URL',
    details: [{ path: 'response.hitl.poll_url', message: 'must be an absolute http(s) URL' }],
  },
  TapRequest: { user: { id: 'ann', name: 'Ann' } },
  InboxBulkRequest: { user: { id: 'ann', name: 'Ann' }, action: 'approve', keys: ['k7Qm2x'] },
  TapReply: { outcome: 'submitted', text: 'Approved.', message: WEB_MESSAGE_EXAMPLE },
  WebMessage: WEB_MESSAGE_EXAMPLE,
} as const;
