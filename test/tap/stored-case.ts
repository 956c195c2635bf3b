/** One pending approval case of a made-up service, as the store holds it: the tap steps' fixture. */
import type { Sealer } from '../../src/store/sealer.ts';
import type { StoredCase } from '../../src/store/types.ts';

export function storedCase(
  sealer: Sealer,
  over: Partial<StoredCase['doc']> = {},
  status: StoredCase['status'] = 'pending',
): StoredCase {
  return {
    id: 'hc_1',
    key: 'k1',
    origin: 'https://svc.example',
    case_id: 'rev_1',
    target: 'web:room',
    status,
    version: 1,
    doc: {
      hitl: {
        spec_version: '0.8',
        case_id: 'rev_1',
        type: 'approval',
        prompt: 'Deploy?',
        poll_url: 'https://svc.example/api/reviews/rev_1/status',
        submit_url: 'https://svc.example/api/reviews/rev_1/submit',
        created_at: '2026-12-01T09:00:00Z',
        expires_at: '2026-12-02T09:00:00Z',
      },
      warnings: [],
      ...over,
    } as StoredCase['doc'],
    secrets: sealer.seal({ review_url: 'https://svc.example/r/rev_1?t=x', submit_token: 'tok' }),
    next_check_at: null,
    etag: null,
    poll_failures: 0,
    claim: null,
    created_at: 0,
    updated_at: 0,
  };
}
