/**
 * File names inside a zip archive, read from its central directory (the names are stored
 * uncompressed, so nothing is inflated). Bounded by entry count and archive size; a damaged
 * or hostile archive yields what could be read, never an exception.
 */
const MAX_ENTRIES = 1000;
const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;

export function zipEntryNames(bytes: Uint8Array): string[] {
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const names = fromCentralDirectory(bytes, view);
    return names.length > 0 ? names : fromLocalHeaders(bytes, view);
  } catch {
    return [];
  }
}

const decoder = new TextDecoder("utf-8", { fatal: false });
const nameAt = (bytes: Uint8Array, at: number, len: number) => decoder.decode(bytes.subarray(at, Math.min(at + len, bytes.length)));

function fromCentralDirectory(bytes: Uint8Array, view: DataView): string[] {
  // The end record sits in the last 22 bytes plus an optional comment of up to 64 KiB.
  const stop = Math.max(0, bytes.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= stop; i--) {
    if (view.getUint32(i, true) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return [];
  const count = Math.min(view.getUint16(eocd + 10, true), MAX_ENTRIES);
  let at = view.getUint32(eocd + 16, true);
  const names: string[] = [];
  for (let k = 0; k < count && at + 46 <= bytes.length; k++) {
    if (view.getUint32(at, true) !== CDH_SIG) break;
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    names.push(nameAt(bytes, at + 46, nameLen));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

// For archives cut short (no central directory), walk the local headers instead.
function fromLocalHeaders(bytes: Uint8Array, view: DataView): string[] {
  const names: string[] = [];
  let at = 0;
  while (names.length < MAX_ENTRIES && at + 30 <= bytes.length && view.getUint32(at, true) === LFH_SIG) {
    const flags = view.getUint16(at + 6, true);
    const size = view.getUint32(at + 18, true);
    const nameLen = view.getUint16(at + 26, true);
    const extraLen = view.getUint16(at + 28, true);
    names.push(nameAt(bytes, at + 30, nameLen));
    if (flags & 0x08 && size === 0) break; // size only in a trailing descriptor: cannot skip the data
    at += 30 + nameLen + extraLen + size;
  }
  return names;
}
