/** Bolt and @slack/web-api log through our pino logger (and so through its secret scrubbing). */
import { format } from 'node:util';
import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../src/log.ts';

/** Wraps a pino logger in the @slack/logger interface. The level stays pino's (LOG_LEVEL). */
export function slackLogger(log: Logger): SlackLogger {
  const child = log.child({ sdk: 'slack' });
  const emit = (level: 'debug' | 'info' | 'warn' | 'error', msg: unknown[]): void => {
    const err = msg.find((part): part is Error => part instanceof Error);
    const text = format(...msg.filter((part) => part !== err));
    if (err) child[level]({ err }, text);
    else child[level](text);
  };
  return {
    debug: (...msg: unknown[]) => emit('debug', msg),
    info: (...msg: unknown[]) => emit('info', msg),
    warn: (...msg: unknown[]) => emit('warn', msg),
    error: (...msg: unknown[]) => emit('error', msg),
    // Bolt sets INFO on any logger it is given; the process level is LOG_LEVEL's, so ignore it.
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}
