import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

declare const MAILROOM_SIGNALS: Record<string, { severity: string; description: string }>;

/** Signal meanings from the service's own rule table (injected at build time). */
export const SIGNALS: Record<string, { severity: string; description: string }> = typeof MAILROOM_SIGNALS === "object" ? MAILROOM_SIGNALS : {};

export const explainSignal = (s: string) => SIGNALS[s] ?? { severity: "info", description: "A signal this console has no description for." };

export const TRIAGE_LABELS = ["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"];
export const RISK_LEVELS = ["low", "medium", "high"];
export const STATUSES = ["received", "processed", "queued", "sent", "failed", "archived", "reviewed"];
export const EVENTS = ["message.received", "message.processed", "message.sent", "protocol.response.created"];

export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  const now = new Date();
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return d.toLocaleDateString([], { year: d.getFullYear() === now.getFullYear() ? undefined : "numeric", month: "short", day: "numeric" });
}
export const fullTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "");

export const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

export const errorText = (e: unknown): string => (e instanceof ApiError ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e));

/** Loads with `fn` whenever `deps` change; `reload` runs it again. Stale answers are dropped. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: string | null; loading: boolean; reload: () => void; set: (t: T) => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setLoading(true);
    fn().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (mine !== seq.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, loading, reload, set: setData };
}

/** Runs an action, keeping its pending state and its error for display. */
export function useAction(): { busy: boolean; error: string | null; run: <T>(f: () => Promise<T>) => Promise<T | undefined>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(f: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await f();
    } catch (e) {
      setError(errorText(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

/** Saves a Blob under a file name (attachments, raw messages fetched with the token). */
export function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Listens for key presses on the page for as long as the component is mounted. The listener is
 * added once and always calls the handler of the latest render: re-adding it in an effect left a
 * window after each render (effects run after paint) in which a key reached the previous render's
 * handler and acted on a stale list or selection.
 */
export function useKeys(handler: (e: KeyboardEvent) => void) {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => latest.current(e);
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
}

/** True when a key press comes from a field being typed into (shortcuts stay out of its way). */
export const typing = (e: KeyboardEvent) => {
  const t = e.target as HTMLElement | null;
  return !!t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
};
