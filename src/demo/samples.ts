/** The demo's sample cases: a prompt, a 202 message and realistic context per review type. */

/** The prompt used when the agent gives none. */
export function defaultPrompt(type: string): string {
  switch (type) {
    case 'approval':
      return 'Approve the production deployment of api-gateway v2.14.0';
    case 'selection':
      return 'Select which jobs to apply for';
    case 'input':
      return 'Provide the missing details for your application to Acme Robotics';
    case 'confirmation':
      return 'Confirm sending 3 job application emails';
    case 'escalation':
      return 'Deployment failed its health check: retry, skip or abort?';
    default:
      return `Review this ${type} request`;
  }
}

/** The 202 `message` for a type. */
export function defaultMessage(type: string): string {
  switch (type) {
    case 'approval':
      return 'A deployment plan is ready. Please approve, edit or reject it.';
    case 'selection':
      return '4 matching jobs found. Please select which ones to apply for.';
    case 'input':
      return 'The application needs a few details only you can provide.';
    case 'confirmation':
      return '3 application emails are ready to send. This cannot be undone.';
    case 'escalation':
      return 'The deployment failed. A human has to decide how to proceed.';
    default:
      return 'A custom review is waiting for you.';
  }
}

/** Realistic context per type, so review pages and chat cards have something true to show. */
const CONTEXTS: Record<string, Record<string, unknown>> = {
  approval: {
    artifact: {
      kind: 'deployment_plan',
      title: 'api-gateway v2.14.0 to production',
      summary: 'Rolling deploy to 6 pods in eu-central-1; adds rate-limit headers.',
      changes: ['Add RateLimit-* headers', 'Bump undici to 7.x', 'Drop legacy /v0 routes'],
      risk: 'medium',
    },
    round: 1,
  },
  selection: {
    query: 'Senior Dev Berlin',
    multiple: true,
    total_options: 4,
    options: [
      {
        id: 'job-1',
        label: 'Senior Backend Engineer, Acme Robotics',
        detail: 'Berlin, hybrid',
      },
      { id: 'job-2', label: 'Staff Engineer, Nordlicht GmbH', detail: 'Remote (EU)' },
      { id: 'job-3', label: 'Senior TypeScript Developer, Spree Labs', detail: 'Berlin' },
      { id: 'job-4', label: 'Platform Engineer, Havel Data', detail: 'Potsdam, on-site' },
    ],
  },
  input: {
    form: {
      fields: [
        { key: 'full_name', label: 'Full name', type: 'text', required: true },
        {
          key: 'salary_expectation',
          label: 'Salary expectation (EUR, annual gross)',
          type: 'number',
          required: true,
          sensitive: true,
          hint: 'The listed range is 95,000 - 120,000 EUR',
          validation: { min: 0, max: 1000000 },
        },
        { key: 'earliest_start_date', label: 'Earliest start date', type: 'date' },
        {
          key: 'work_authorization',
          label: 'Work authorization in Germany',
          type: 'select',
          required: true,
          options: [
            { value: 'citizen', label: 'EU/EEA citizen' },
            { value: 'blue_card', label: 'EU Blue Card' },
            { value: 'needs_sponsorship', label: 'Requires visa sponsorship' },
          ],
        },
        { key: 'willing_to_relocate', label: 'Willing to relocate', type: 'boolean' },
      ],
    },
  },
  confirmation: {
    irreversible: true,
    impact: 'Emails cannot be recalled once sent.',
    items: [
      { id: 'mail-1', label: 'Application to Acme Robotics (jobs@acme.example)' },
      { id: 'mail-2', label: 'Application to Nordlicht GmbH (careers@nordlicht.example)' },
      { id: 'mail-3', label: 'Application to Spree Labs (hello@spree.example)' },
    ],
  },
  escalation: {
    error: {
      code: 'HEALTHCHECK_FAILED',
      message: 'api-gateway pods failed readiness: 3 of 6 returned HTTP 503',
      step: 'deploy:production',
      attempt: 2,
    },
    options_hint:
      'Retry re-runs the rollout; skip leaves v2.13.4 running; abort stops the pipeline.',
  },
};

/** A fresh copy of the type's context (callers may change it). */
export function defaultContext(type: string): Record<string, unknown> {
  const context = Object.hasOwn(CONTEXTS, type) ? CONTEXTS[type] : undefined;
  return context
    ? structuredClone(context)
    : { note: 'A service-specific review; agents treat unknown types as input.' };
}
