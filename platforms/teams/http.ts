/** Shims between the relay's InboundRequest/InboundResponse and botbuilder's minimal Request/Response. */
import type { Request, Response } from 'botbuilder';
import type { InboundRequest, InboundResponse } from '../../src/adapter.ts';

/** botbuilder's Request from an already-parsed JSON body. */
export function toBotRequest(req: InboundRequest, body: Record<string, unknown>): Request {
  return { method: req.method, headers: { ...req.headers }, body };
}

/** Collects what CloudAdapter.process writes (status, headers, body) into an InboundResponse. */
export class ResponseShim implements Response {
  readonly socket: unknown = null;
  private code = 200;
  private readonly headers: Record<string, string> = {};
  private body: unknown;

  status(code: number): this {
    this.code = code;
    return this;
  }

  header(name: string, value: unknown): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  send(...args: unknown[]): this {
    this.body = args[0];
    return this;
  }

  end(): this {
    return this;
  }

  /** The collected answer; objects go out as JSON. */
  toInbound(): InboundResponse {
    const out: InboundResponse = { status: this.code, headers: { ...this.headers } };
    if (this.body === undefined || this.body === null) return out;
    if (typeof this.body === 'string' || Buffer.isBuffer(this.body)) {
      out.body = this.body;
    } else if (typeof this.body === 'object') {
      out.body = this.body;
    } else {
      out.body = String(this.body);
    }
    return out;
  }
}
