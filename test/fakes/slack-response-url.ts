/**
 * Slack's response_url (https://hooks.slack.com/actions/… and …/commands/… in production), as the
 * fake Slack serves it under its own origin: POST a JSON message (`text` and/or `blocks`,
 * `response_type`, `replace_original`, `delete_original`); Slack answers 200 "ok", or an error
 * word: 400 invalid_payload / invalid_blocks / no_text, 404 used_url after five uses.
 */
import type { ServerResponse } from 'node:http';
import { blocksProblem } from './slack-blocks.ts';

/** One message posted to a response_url. */
export interface FakeSlackResponse {
  url: string;
  body: Record<string, unknown>;
}

const USES_MAX = 5;

/** The response_urls of the fake: what was posted to each. */
export class FakeSlackResponseUrls {
  readonly posted: FakeSlackResponse[] = [];

  /** Whether `path` is a response_url path (not a Web API method). */
  handles(path: string | undefined): boolean {
    return /^\/(actions|commands)\//.test(path ?? '');
  }

  /** Answers one POST to a response_url as Slack does. */
  serve(path: string, raw: string, res: ServerResponse): void {
    const error = this.accept(path, raw);
    res.writeHead(error ? error.status : 200, { 'content-type': 'text/html' });
    res.end(error ? error.word : 'ok');
  }

  private accept(path: string, raw: string): { status: number; word: string } | null {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { status: 400, word: 'invalid_payload' };
    }
    if (this.posted.filter((p) => p.url === path).length >= USES_MAX)
      return { status: 404, word: 'used_url' };
    if (body.blocks !== undefined && blocksProblem(body.blocks as unknown[]))
      return { status: 400, word: 'invalid_blocks' };
    if (!body.text && !(Array.isArray(body.blocks) && body.blocks.length))
      return { status: 400, word: 'no_text' };
    this.posted.push({ url: path, body });
    return null;
  }
}
