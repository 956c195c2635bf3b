/**
 * The Cloud API's rules for one `/messages` body, as the fake Graph API enforces them (from the
 * WhatsApp Business Platform docs: interactive reply buttons, list, CTA URL, text and template
 * messages). Each broken rule is the Graph API's error: code 100 (invalid parameter) or 131009
 * (parameter value not valid) with a message naming the field.
 */

/** A Graph API error answer. */
export interface GraphFault {
  status: number;
  code: number;
  message: string;
  details?: string;
}

/** An approved template the fake knows: its name, language, body variables and quick replies. */
export interface FakeTemplate {
  name: string;
  language: string;
  bodyParams: number;
  quickReplies: number;
}

type Json = Record<string, any>;

const invalid = (message: string): GraphFault => ({
  status: 400,
  code: 131009,
  message: '(#131009) Parameter value is not valid',
  details: message,
});

const length = (s: unknown): number => (typeof s === 'string' ? [...s].length : -1);

function checkBody(text: unknown, max: number, where: string): GraphFault | null {
  const n = length(text);
  if (n < 1) return invalid(`${where} is required`);
  if (n > max) return invalid(`${where} is ${n} characters; at most ${max}`);
  return null;
}

function checkButtons(i: Json): GraphFault | null {
  const buttons = i.action?.buttons;
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3)
    return invalid('interactive.action.buttons must hold 1-3 reply buttons');
  const ids = new Set<string>();
  for (const b of buttons) {
    if (b?.type !== 'reply') return invalid('interactive.action.buttons[].type must be "reply"');
    const title = length(b.reply?.title);
    if (title < 1 || title > 20)
      return invalid(`button title "${b.reply?.title}" is ${title} characters; 1-20 allowed`);
    const id = length(b.reply?.id);
    if (id < 1 || id > 256) return invalid('button id must be 1-256 characters');
    if (ids.has(b.reply.id)) return invalid('button ids must be unique');
    ids.add(b.reply.id);
  }
  return checkBody(i.body?.text, 1024, 'interactive.body.text');
}

function checkList(i: Json): GraphFault | null {
  const button = length(i.action?.button);
  if (button < 1 || button > 20)
    return invalid('interactive.action.button must be 1-20 characters');
  const sections = i.action?.sections;
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
    return invalid('interactive.action.sections must hold 1-10 sections');
  const rows = sections.flatMap((s: Json) => (Array.isArray(s.rows) ? s.rows : []));
  if (rows.length < 1 || rows.length > 10) return invalid('a list holds 1-10 rows in all');
  for (const r of rows) {
    if (length(r.title) < 1 || length(r.title) > 24)
      return invalid('row title must be 1-24 characters');
    if (length(r.id) < 1 || length(r.id) > 200) return invalid('row id must be 1-200 characters');
    if (r.description !== undefined && length(r.description) > 72)
      return invalid('row description must be at most 72 characters');
  }
  return checkBody(i.body?.text, 4096, 'interactive.body.text');
}

function checkCtaUrl(i: Json): GraphFault | null {
  if (i.action?.name !== 'cta_url') return invalid('interactive.action.name must be "cta_url"');
  const p = i.action?.parameters ?? {};
  if (length(p.display_text) < 1 || length(p.display_text) > 20)
    return invalid('cta_url display_text must be 1-20 characters');
  if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url))
    return invalid('cta_url url must be http(s)');
  if (i.action?.buttons) return invalid('a cta_url message takes no reply buttons');
  return checkBody(i.body?.text, 1024, 'interactive.body.text');
}

/** A template send: known, approved, and its variables and quick replies as many as approved. */
function checkTemplate(t: Json, templates: readonly FakeTemplate[]): GraphFault | null {
  const known = templates.find((x) => x.name === t?.name && x.language === t?.language?.code);
  if (!known)
    return {
      status: 404,
      code: 132001,
      message: '(#132001) Template name does not exist in the translation',
    };
  const components: Json[] = Array.isArray(t.components) ? t.components : [];
  const params = components.find((c) => c.type === 'body')?.parameters ?? [];
  if (params.length !== known.bodyParams)
    return {
      status: 400,
      code: 132000,
      message: '(#132000) Number of parameters does not match the expected number of params',
    };
  for (const p of params) {
    if (typeof p.text !== 'string' || /[\n\t]| {5,}/.test(p.text))
      return {
        status: 400,
        code: 132018,
        message: '(#132018) There was an issue with the parameters in your template',
      };
  }
  const replies = components.filter((c) => c.type === 'button' && c.sub_type === 'quick_reply');
  if (replies.length !== known.quickReplies)
    return invalid(`template ${known.name} has ${known.quickReplies} quick-reply buttons`);
  return null;
}

/** The first rule `body` breaks, or null. */
export function checkMessage(body: Json, templates: readonly FakeTemplate[]): GraphFault | null {
  if (body.messaging_product !== 'whatsapp') return invalid('messaging_product must be "whatsapp"');
  if (typeof body.to !== 'string' || !/^\d{5,20}$/.test(body.to))
    return invalid('to must be a wa_id');
  switch (body.type) {
    case 'text':
      return checkBody(body.text?.body, 4096, 'text.body');
    case 'template':
      return checkTemplate(body.template, templates);
    case 'interactive': {
      const i = body.interactive ?? {};
      if (i.type === 'button') return checkButtons(i);
      if (i.type === 'list') return checkList(i);
      if (i.type === 'cta_url') return checkCtaUrl(i);
      return invalid(`interactive.type "${i.type}" is not supported here`);
    }
    default:
      return { status: 400, code: 100, message: `(#100) Invalid parameter: type "${body.type}"` };
  }
}
