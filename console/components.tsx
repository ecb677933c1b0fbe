import type { ComponentChildren } from "preact";
import { explainSignal } from "./util.ts";

export const Risk = ({ level }: { level: string | null }) => (level ? <span class={`badge risk-${level}`} title={`risk ${level}`}>{level}</span> : <span class="badge muted">unassessed</span>);

export const Triage = ({ label }: { label: string | null }) => (label ? <span class={`badge triage triage-${label}`}>{label.replace("_", " ")}</span> : null);

export const Status = ({ status }: { status: string }) => <span class={`badge status status-${status}`}>{status}</span>;

export const ErrorBox = ({ error }: { error: string | null | undefined }) => (error ? <p class="error" role="alert">{error}</p> : null);

export const Loading = ({ when, children }: { when: boolean; children?: ComponentChildren }) => (when ? <p class="muted">Loading…</p> : <>{children}</>);

export function Signals({ signals }: { signals: string[] }) {
  if (signals.length === 0) return <p class="muted">No suspicious signals.</p>;
  return (
    <ul class="signals">
      {signals.map((s) => {
        const info = explainSignal(s);
        return (
          <li key={s} class={`signal sev-${info.severity}`} data-signal={s}>
            <code>{s}</code> <span class="badge muted">{info.severity}</span>
            <div class="explain">{info.description}</div>
          </li>
        );
      })}
    </ul>
  );
}

const verdictClass = (v: string) => (v === "pass" ? "ok" : v === "fail" || v === "softfail" || v === "permerror" ? "bad" : "neutral");

export function AuthVerdicts({ auth }: { auth: { spf: string; dkim: string; dmarc: string } | null | undefined }) {
  if (!auth) return <p class="muted">No email authentication results (outbound mail, or not processed yet).</p>;
  return (
    <dl class="verdicts">
      {(["spf", "dkim", "dmarc"] as const).map((k) => (
        <div key={k} class={`verdict ${verdictClass(auth[k])}`}>
          <dt>{k.toUpperCase()}</dt>
          <dd>{auth[k]}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A secret the API shows once: the user copies it now or never. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="shown-once" role="status">
      <strong>{label}</strong> (shown only this once; copy it now)
      <input readOnly value={value} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} data-secret />
      <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>Copy</button>
    </div>
  );
}
