import { describe, expect, it } from 'vitest';
import {
  cardBytes,
  escapeTeamsText,
  renderTeamsCard,
  TEAMS_CARD_VERSION,
  TEAMS_MESSAGE_MAX_BYTES,
  TEAMS_NOTICE_BLOCK_ID,
  truncateText,
} from '../../../platforms/teams/render.ts';
import { makeCard } from './helpers.ts';

type Node = Record<string, unknown>;

/** Every TextBlock text in the card body, nested containers included. */
function texts(card: { body: Node[] }): string[] {
  const out: string[] = [];
  const walk = (nodes: Node[]) => {
    for (const n of nodes) {
      if (n.type === 'TextBlock') out.push(String(n.text));
      if (Array.isArray(n.items)) walk(n.items as Node[]);
    }
  };
  walk(card.body);
  return out;
}

describe('renderTeamsCard', () => {
  it('renders an Adaptive Card 1.4 with title, prompt, lines, hint and status', () => {
    const json = renderTeamsCard(makeCard());
    expect(json.type).toBe('AdaptiveCard');
    expect(json.version).toBe(TEAMS_CARD_VERSION);
    expect(json.body[0]).toMatchObject({
      type: 'TextBlock',
      text: 'Approval needed',
      weight: 'Bolder',
    });
    expect(texts(json)).toEqual([
      'Approval needed',
      'Deploy v2.3 to production?',
      'Service: deployer',
      'Environment: prod',
      'Approve cannot be undone.',
      'Waiting for a decision',
    ]);
  });

  it('gives one Action.Execute per action, payload in verb and data, with an Action.Submit fallback', () => {
    const json = renderTeamsCard(makeCard());
    expect(json.actions).toEqual([
      {
        type: 'Action.Execute',
        id: 'hitl-approve',
        verb: 'hitl:k7Qa9:approve',
        title: 'Approve',
        data: { hitl: 'hitl:k7Qa9:approve' },
        style: 'positive',
        fallback: {
          type: 'Action.Submit',
          title: 'Approve',
          data: { hitl: 'hitl:k7Qa9:approve' },
          style: 'positive',
        },
      },
      {
        type: 'Action.Execute',
        id: 'hitl-reject',
        verb: 'hitl:k7Qa9:reject',
        title: 'Reject',
        data: { hitl: 'hitl:k7Qa9:reject' },
        style: 'destructive',
        fallback: {
          type: 'Action.Submit',
          title: 'Reject',
          data: { hitl: 'hitl:k7Qa9:reject' },
          style: 'destructive',
        },
      },
      { type: 'Action.OpenUrl', title: 'Details', url: 'https://service.example/review/1' },
    ]);
  });

  it('leaves secondary actions unstyled', () => {
    const json = renderTeamsCard(
      makeCard({
        actions: [{ action: 'skip', label: 'Skip', style: 'secondary', payload: 'hitl:k:skip' }],
      }),
    );
    expect(json.actions[0]).not.toHaveProperty('style');
  });

  it('shows no Execute action on a final card, keeps Details and says who decided', () => {
    const json = renderTeamsCard(makeCard({ final: true, status: 'Approved by Ann at 10:15 UTC' }));
    expect(json.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
    expect(texts(json).at(-1)).toBe('Approved by Ann at 10:15 UTC');
  });

  it('hides the buttons while submitting and adds a notice block when asked', () => {
    const json = renderTeamsCard(makeCard(), { submitting: true, notice: 'Only Ann may decide.' });
    expect(json.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
    expect(texts(json)).toContain('Waiting for a decision · Submitting…');
    expect(json.body.at(-1)).toMatchObject({
      id: TEAMS_NOTICE_BLOCK_ID,
      text: 'Only Ann may decide.',
    });
  });

  it('escapes Markdown, HTML-ish text and DATE/TIME functions from the service', () => {
    const json = renderTeamsCard(
      makeCard({
        title: '**bold** _it_',
        prompt:
          '[click](https://evil.example) <at>Ann</at> &amp; {{DATE(2017-02-14T06:08:39Z, SHORT)}}',
        lines: ['- not a list', '1. not numbered'],
      }),
    );
    const [title, prompt, first, second] = texts(json);
    expect(title).toBe('\\*\\*bold\\*\\* \\_it\\_');
    expect(prompt).toBe(
      '\\[click\\](https://evil.example) \\<at\\>Ann\\</at\\> \\&amp; {\u200B{DATE(2017-02-14T06:08:39Z, SHORT)}}',
    );
    expect(first).toBe('\\- not a list');
    expect(second).toBe('1\\. not numbered');
  });

  it('keeps single line breaks of the prompt as paragraphs', () => {
    expect(texts(renderTeamsCard(makeCard({ prompt: 'one\ntwo' })))[1]).toBe('one\n\ntwo');
  });

  it('cuts the body, never the actions, to stay under the size limit', () => {
    const card = makeCard({
      prompt: '€'.repeat(200_000),
      lines: Array.from({ length: 100 }, () => 'x'.repeat(5000)),
    });
    const json = renderTeamsCard(card);
    expect(cardBytes(json)).toBeLessThanOrEqual(TEAMS_MESSAGE_MAX_BYTES);
    expect(json.actions).toEqual(renderTeamsCard(makeCard()).actions);
    expect(texts(json)[1]?.endsWith('…')).toBe(true);
  });

  it('fits a tiny budget by cutting text', () => {
    const json = renderTeamsCard(makeCard({ prompt: 'p'.repeat(3000) }), {}, 2000);
    expect(cardBytes(json)).toBeLessThanOrEqual(2000);
    expect(json.actions).toHaveLength(3);
  });
});

describe('text helpers', () => {
  it('truncates by code points and marks the cut', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText('😀😀😀😀', 3)).toBe('😀😀…');
  });

  it('leaves plain text alone', () => {
    expect(escapeTeamsText('Deploy v2.3 to prod (eu-west-1) - now!')).toBe(
      'Deploy v2.3 to prod (eu-west-1) - now!',
    );
  });
});
