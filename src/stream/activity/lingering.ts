/**
 * Watches left after their last /stream/activity connection closed, oldest
 * first. Each is charged to the client whose connection left it: a client
 * holds at most `perClient` of them (leaving one more forgets its own oldest),
 * so no client can crowd the others out; the channel takes the oldest of all
 * when it needs room (the watch budget) and forgets those whose time is up.
 */
export class Lingering {
  /** Entity → the client it is charged to, oldest first. */
  readonly #order = new Map<string, string>();
  /** Client → its lingering entities, oldest first. */
  readonly #byClient = new Map<string, Set<string>>();
  readonly #perClient: number;

  constructor(perClient: number) {
    this.#perClient = Math.max(1, perClient);
  }

  get size(): number {
    return this.#order.size;
  }

  /** Clients holding lingering watches. */
  get clients(): number {
    return this.#byClient.size;
  }

  /** `entity` lingers, charged to `client`; returns the entity that client no longer keeps (its oldest), or null. */
  add(entity: string, client: string): string | null {
    this.delete(entity);
    this.#order.set(entity, client);
    let mine = this.#byClient.get(client);
    if (mine === undefined) this.#byClient.set(client, (mine = new Set()));
    mine.add(entity);
    if (mine.size <= this.#perClient) return null;
    const oldest = mine.values().next().value!;
    this.delete(oldest);
    return oldest;
  }

  /** Forgets `entity` (watched again by a connection, or gone); false when it was not lingering. */
  delete(entity: string): boolean {
    const client = this.#order.get(entity);
    if (client === undefined) return false;
    this.#order.delete(entity);
    const mine = this.#byClient.get(client)!;
    mine.delete(entity);
    if (mine.size === 0) this.#byClient.delete(client);
    return true;
  }

  /** The entity lingering longest, if any. */
  oldest(): string | undefined {
    return this.#order.keys().next().value;
  }
}
