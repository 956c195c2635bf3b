/** A case as both dialects store it: one row, the document as the dialect keeps JSON (`Doc`). */
export interface CaseRowOf<Doc> {
  id: string;
  key: string;
  origin: string;
  case_id: string;
  target: string;
  status: string;
  version: number;
  doc: Doc;
  secrets: string;
  next_check_at: number | null;
  etag: string | null;
  poll_failures: number;
  claim_holder: string | null;
  claim_until: number | null;
  created_at: number;
  updated_at: number;
}
