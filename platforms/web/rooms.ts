/**
 * The web chat's rooms in the relay's key-value store (shared by every replica): each message under
 * its id, each room's messages in numbered slots, and a room version that changes with every post,
 * edit and notice, so a page that already has the room is answered 304 after one read.
 */
import { randomBytes } from 'node:crypto';
import type { KeyValue } from '../../src/adapter.ts';
import type { WebMessage } from './render.ts';

/**
 * How long the web chat keeps a message after its last post or edit. The web chat is a window on
 * cases, not their record (that is the case store with its own retention), so old rooms fade.
 */
export const WEB_MESSAGE_TTL_MS = 30 * 86_400_000;
/** Most messages a room shows (the newest); older ones stay reachable through the case API. */
export const WEB_ROOM_MAX_MESSAGES = 500;
/** Slots read per room listing (keys sort as text, so all live slots are read, then the newest kept). */
const ROOM_LIST_LIMIT = 10_000;

const messageKey = (id: string) => `web:msg:${id}`;
const versionKey = (room: string) => `web:room:${room}:v`;
const countKey = (room: string) => `web:room:${room}:n`;
const slotKey = (room: string, i: number) => `web:room:${room}:${i}`;
const newVersion = () => randomBytes(6).toString('base64url');

/** Typed access to the rooms in `kv` (a function: the store is handed over at start). */
export class WebRooms {
  constructor(private readonly kv: () => KeyValue) {}

  async load(id: string): Promise<WebMessage | undefined> {
    const raw = await this.kv().get(messageKey(id));
    return raw ? JSON.parse(raw) : undefined;
  }

  /** Each write keeps a message (and its room's entries) for WEB_MESSAGE_TTL_MS from then. */
  async save(m: WebMessage): Promise<void> {
    await this.kv().set(messageKey(m.id), JSON.stringify(m), WEB_MESSAGE_TTL_MS);
  }

  /** The room's current version (made when the room has none yet). */
  async version(room: string): Promise<string> {
    const version = await this.kv().get(versionKey(room));
    if (version !== undefined) return version;
    await this.bump(room);
    return (await this.kv().get(versionKey(room))) ?? '';
  }

  /** A new version of the room (on any replica: it lives in the shared key-value store). */
  async bump(room: string): Promise<void> {
    await this.kv().set(versionKey(room), newVersion(), WEB_MESSAGE_TTL_MS);
  }

  /**
   * Appends a message to its room in O(1) and makes a new room version: each position is claimed
   * with setIfAbsent, so concurrent posts (from any replica) never lose each other; the message,
   * the count (only a starting hint) and the version are written with the claim that wins, so a
   * post is one read and one write.
   */
  async append(room: string, m: WebMessage): Promise<void> {
    const kv = this.kv();
    const guarded = (i: number) => [
      { key: messageKey(m.id), value: JSON.stringify({ ...m, slot: i }) },
      { key: countKey(room), value: String(i + 1) },
      { key: versionKey(room), value: newVersion() },
    ];
    let i = Number((await kv.get(countKey(room))) ?? 0);
    while (!(await kv.setIfAbsent(slotKey(room, i), m.id, WEB_MESSAGE_TTL_MS, guarded(i)))) i++;
  }

  /**
   * Keeps an edited message's place in its room as long as the message itself (a message stored
   * before slots expired has no slot number, and its slot never expires).
   */
  async renewSlot(room: string, m: WebMessage): Promise<void> {
    if (m.slot === undefined) return;
    await this.kv().compareAndSet(slotKey(room, m.slot), m.id, m.id, WEB_MESSAGE_TTL_MS);
  }

  /** The room's messages in posting order (the newest WEB_ROOM_MAX_MESSAGES). */
  async messages(room: string): Promise<WebMessage[]> {
    const prefix = `web:room:${room}:`;
    const ids = (await this.kv().list(prefix, ROOM_LIST_LIMIT))
      .map((e) => ({ i: Number(e.key.slice(prefix.length)), id: e.value }))
      .filter((e) => Number.isInteger(e.i)) // not the :n and :v entries
      .sort((a, b) => a.i - b.i)
      .slice(-WEB_ROOM_MAX_MESSAGES)
      .map((e) => e.id);
    return (await Promise.all(ids.map((id) => this.load(id)))).filter((m): m is WebMessage => !!m);
  }
}
