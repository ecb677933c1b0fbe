/**
 * Work on megabytes spread over turns of the event loop, so that no client of the node waits
 * behind one large request (issue 13's rule: 50 ms).
 */

/** Resolves on a later turn of the event loop, after timers and I/O waiting now. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Bytes copied per turn by joinInTurns. */
const JOIN_STEP = 1024 * 1024;

/**
 * `parts` joined into one buffer of its own, at most JOIN_STEP bytes a turn. Copying into
 * fresh memory is mostly page faults here (~20 ms of the thread for 8 MiB in one stretch,
 * measured), paid a megabyte at a time. The parts must not change until it resolves.
 */
export async function joinInTurns(parts: readonly Uint8Array[]): Promise<Uint8Array> {
  const size = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  let at = 0;
  let sinceTurn = 0;
  for (const part of parts) {
    for (let from = 0; from < part.byteLength; ) {
      const n = Math.min(JOIN_STEP - sinceTurn, part.byteLength - from);
      out.set(part.subarray(from, from + n), at);
      at += n;
      from += n;
      sinceTurn += n;
      if (sinceTurn >= JOIN_STEP) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  }
  return out;
}
