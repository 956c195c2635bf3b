/**
 * The one logger (pino) and its one redaction layer. Structured fields that can hold secrets are
 * censored by path; every finished line is also scrubbed of registered secrets (bot tokens, signing
 * secrets, API keys), bearer tokens and `token=` query parameters, so a secret that slips into an
 * error message is still caught.
 */
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';

export type Logger = pino.Logger;

const REDACT_PATHS = [
  'submit_token',
  '*.submit_token',
  'hitl.submit_token',
  '*.hitl.submit_token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
  '*.token',
  'secret',
  '*.secret',
];

const registered = new Set<string>();

/** Registers a secret (bot token, signing secret, API key) so no log line ever shows it. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 8) registered.add(value);
}

const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const TOKEN_PARAM = /([?&](?:token|access_token|sig|signature)=)[^&\s"'#]+/gi;

/** Removes secrets from a piece of text (used on log lines and on error messages shown to people). */
export function scrub(text: string): string {
  let out = text.replace(BEARER, '$1[REDACTED]').replace(TOKEN_PARAM, '$1[REDACTED]');
  for (const secret of registered) {
    if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  }
  return out;
}

/** Creates the process logger. `destination` is for tests that read every line. */
export function createLogger(
  options: {
    level?: string;
    destination?: { write(line: string): void };
    /** json, or pretty (one readable line per event); default: pretty when stdout is a terminal. */
    format?: 'json' | 'pretty' | undefined;
  } = {},
): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const config: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: {
      streamWrite: scrub,
    },
  };
  const dest = options.destination;
  const format =
    options.format ??
    (process.env.LOG_FORMAT === 'pretty' || (!dest && process.stdout.isTTY) ? 'pretty' : 'json');
  if (format === 'pretty') {
    // The scrubbed JSON line is turned into a readable one, so redaction is the same in both formats.
    const prettify = prettyFactory({
      colorize: !dest && Boolean(process.stdout.isTTY),
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
    });
    const out = dest ?? process.stdout;
    return pino(config, { write: (line: string) => void out.write(prettify(line)) });
  }
  return dest ? pino(config, { write: (line: string) => dest.write(line) }) : pino(config);
}
