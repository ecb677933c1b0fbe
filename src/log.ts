import pino from "pino";

export type Logger = pino.Logger;

/** One structured logger for the process; children carry requestId, mailboxId, jobId. */
export function createLogger(level: string, nodeId: string): Logger {
  return pino({
    level,
    base: { node: nodeId },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
