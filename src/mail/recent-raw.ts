/**
 * The raw bytes of recently accepted messages, kept in memory so that processing on this
 * node does not read back from the database what ingest has just written. Only a shortcut:
 * the database copy is the record, and a miss (another node, a restart, eviction) reads it.
 * Bounded by total bytes; the least recently stored entries go first.
 */
export class RecentRaw {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  put(sha256: string, raw: Uint8Array): void {
    if (raw.byteLength > this.maxBytes) return;
    const had = this.entries.get(sha256);
    if (had) {
      this.entries.delete(sha256);
      this.bytes -= had.byteLength;
    }
    this.entries.set(sha256, raw);
    this.bytes += raw.byteLength;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.byteLength;
    }
  }

  get(sha256: string): Uint8Array | undefined {
    return this.entries.get(sha256);
  }

  get size(): number {
    return this.bytes;
  }
}
