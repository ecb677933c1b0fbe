/** Where a raw message's head ends, as checkAuth reads it (auth.ts, auth-verdicts.ts): no mailauth here. */

/** A head longer than this is read as if it were all head (mailauth then sees everything). */
export const HEAD_SCAN_BYTES = 256 * 1024;

/** Bytes up to and including the blank line that ends the head (all of them when there is none). */
export function headLength(raw: Uint8Array): number {
  if (raw[0] === 0x0a) return 1;
  if (raw[0] === 0x0d && raw[1] === 0x0a) return 2;
  const scan = Math.min(raw.byteLength, HEAD_SCAN_BYTES);
  for (let i = 0; i < scan - 1; i++) {
    if (raw[i] !== 0x0a) continue;
    if (raw[i + 1] === 0x0a) return i + 2;
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a) return i + 3;
  }
  return raw.byteLength;
}
