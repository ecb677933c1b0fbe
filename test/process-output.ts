/**
 * Reads a child process's output stream line by line: every line into `lines`, the JSON log
 * records among them into `logs`. `onChunk` runs after each chunk and at the end, so a waiter
 * can look again. Shared by the process tests and the cluster's node processes.
 */
export async function collectLines(
  stream: ReadableStream<Uint8Array>,
  lines: string[],
  logs: Record<string, any>[],
  onChunk: () => void = () => {},
): Promise<void> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      lines.push(line);
      try {
        const parsed = JSON.parse(line);
        if (parsed && typeof parsed === "object") logs.push(parsed);
      } catch {
        // not a log record (e.g. a config error on stderr)
      }
    }
    onChunk();
  }
  if (rest) lines.push(rest);
  onChunk();
}
