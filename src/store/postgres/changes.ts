/** PostgreSQL: hearing the case changes other replicas write (LISTEN on a connection of its own). */
import pg from 'pg';
import type { ChangeFeed } from '../store.ts';
import { CHANGES_CHANNEL } from './case-writes.ts';
import { types } from './pool.ts';

type OnChange = (id: string | null) => void;

/** One listening connection and its retries; stop() ends it. */
class ChangeListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly changeSource: string,
    private readonly onChange: OnChange,
    private readonly onError?: (err: Error) => void,
  ) {}

  /** `again`: a reconnect, after which waiters re-read (changes may have been missed). */
  async connect(again: boolean): Promise<void> {
    const c = new pg.Client({ connectionString: this.url, types });
    let lost = false;
    const reconnect = () => {
      if (lost || this.stopped) return;
      lost = true;
      this.client = undefined;
      c.end().catch(() => {});
      this.retry = setTimeout(() => void this.connect(true), 1000);
      this.retry.unref();
    };
    // A dropped connection is heard here and retried every second; waiters re-read once it is back.
    c.on('error', (err) => {
      this.onError?.(err);
      reconnect();
    });
    c.on('end', reconnect);
    c.on('notification', (n) => this.heard(n.payload ?? ''));
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      this.onError?.(err instanceof Error ? err : new Error(String(err)));
      reconnect();
      return;
    }
    if (this.stopped) return void (await c.end().catch(() => {}));
    this.client = c;
    if (again) this.onChange(null);
  }

  /**
   * `<source>:<case id>`, or `<source>:<topic> <topic> ...` from publishChange; this store's own
   * notices were heard in-process already.
   */
  private heard(payload: string): void {
    const i = payload.indexOf(':');
    if (i <= 0 || payload.slice(0, i) === this.changeSource) return;
    for (const id of payload.slice(i + 1).split(' ')) if (id) this.onChange(id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }
}

/** Both sides of the change channel: hearing other processes, and telling them (a web chat room). */
export function pgChangeFeed(
  pool: pg.Pool,
  url: string,
  changeSource: string,
  onError?: (err: Error) => void,
): Required<ChangeFeed> {
  return {
    async publishChange(topics) {
      // One notice for all of them: `<source>:<topic> <topic> ...` (topics and case ids have no spaces).
      const payload = `${changeSource}:${topics.join(' ')}`;
      await pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]);
    },
    async listenChanges(onChange) {
      const listener = new ChangeListener(url, changeSource, onChange, onError);
      // A first connection that fails is retried like a lost one (waiters re-read once it is up).
      await listener.connect(false);
      return () => listener.stop();
    },
  };
}
