// oidc-provider's storage for the test issuer: one in-process map shared by every Provider the issuer creates, so
// sessions and grants outlive a key rotation. (oidc-provider's own memory adapter prints a warning when used.)
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry { payload: AdapterPayload; expiresAt: number }

/** A factory of adapters (one per oidc-provider model) over one shared map. */
export function memoryAdapterFactory(): AdapterFactory {
  const entries = new Map<string, Entry>();
  return (model) => new MemoryAdapter(model, entries);
}

class MemoryAdapter implements Adapter {
  readonly #model: string;
  readonly #entries: Map<string, Entry>;

  constructor(model: string, entries: Map<string, Entry>) {
    this.#model = model;
    this.#entries = entries;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const expiresAt = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
    this.#entries.set(this.#key(id), { payload, expiresAt });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const entry = this.#entries.get(this.#key(id));
    if (entry === undefined || entry.expiresAt <= Date.now()) return undefined;
    return entry.payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere((payload) => payload.uid === uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.#findWhere((payload) => payload.userCode === userCode);
  }

  async consume(id: string): Promise<void> {
    const payload = await this.find(id);
    if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.#entries.delete(this.#key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [key, entry] of this.#entries) if (entry.payload.grantId === grantId) this.#entries.delete(key);
  }

  #key(id: string): string {
    return `${this.#model}:${id}`;
  }

  #findWhere(test: (payload: AdapterPayload) => boolean): AdapterPayload | undefined {
    const prefix = `${this.#model}:`;
    for (const [key, entry] of this.#entries) {
      if (key.startsWith(prefix) && entry.expiresAt > Date.now() && test(entry.payload)) return entry.payload;
    }
    return undefined;
  }
}
