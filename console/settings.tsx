import { useEffect, useState } from "preact/hooks";
import { ApiError, type Api, type Binding, type Mailbox, type Policy } from "./api.ts";
import { ErrorBox, ShownOnce } from "./components.tsx";
import { accountOf } from "./accounts.tsx";
import type { Session } from "./session.ts";
import { errorText, fullTime, useAction, useLoad, when } from "./util.ts";

function PolicyForm({ api, mailbox }: { api: Api; mailbox: Mailbox }) {
  const policy = useLoad(() => api.policy(mailbox.id), [mailbox.id]);
  const [form, setForm] = useState<Policy | null>(null);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  useEffect(() => setForm(policy.data ?? null), [policy.data]);
  if (!form) return <ErrorBox error={policy.error} />;
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        const p = await act.run(() => api.putPolicy(mailbox.id, { allow_outbound: form.allow_outbound, allow_auto_reply: form.allow_auto_reply, max_outbound_per_day: form.max_outbound_per_day }));
        if (p) {
          policy.set(p);
          setSaved(true);
        }
      }}
    >
      <h2>Policy</h2>
      <label class="check">
        <input type="checkbox" name="allow_outbound" checked={form.allow_outbound} onChange={(e) => setForm({ ...form, allow_outbound: (e.target as HTMLInputElement).checked })} /> Allow sending
      </label>
      <label class="check">
        <input type="checkbox" name="allow_auto_reply" checked={form.allow_auto_reply} onChange={(e) => setForm({ ...form, allow_auto_reply: (e.target as HTMLInputElement).checked })} /> Allow agent-protocol auto-replies
      </label>
      <label>
        Sends per sliding hour (<code>max_outbound_per_day</code>)
        <input type="number" name="max_outbound_per_day" min={0} max={1000000} value={form.max_outbound_per_day} onInput={(e) => setForm({ ...form, max_outbound_per_day: Number((e.target as HTMLInputElement).value) })} />
      </label>
      <button type="submit" disabled={act.busy}>
        Save policy
      </button>
      {saved ? <span class="muted"> Saved {when(policy.data?.updated_at)}.</span> : null}
      <ErrorBox error={act.error} />
    </form>
  );
}

const RULE_EXAMPLE = [{ name: "label invoices", match: { subject_contains: ["invoice"] }, actions: [{ type: "label", label: "invoices" }] }];

function AutopilotForm({ api, mailbox }: { api: Api; mailbox: Mailbox }) {
  const ap = useLoad(() => api.autopilot(mailbox.id), [mailbox.id]);
  const [mode, setMode] = useState("observe");
  const [rules, setRules] = useState("[]");
  const [problems, setProblems] = useState<string[]>([]);
  const act = useAction();
  useEffect(() => {
    if (!ap.data) return;
    setMode(ap.data.mode);
    setRules(JSON.stringify(ap.data.rules, null, 2));
  }, [ap.data]);
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        setProblems([]);
        let parsed: unknown;
        try {
          parsed = JSON.parse(rules);
        } catch (err) {
          setProblems([`The rules are not JSON: ${errorText(err)}`]);
          return;
        }
        if (!Array.isArray(parsed)) return setProblems(["The rules must be a JSON array."]);
        try {
          ap.set(await api.putAutopilot(mailbox.id, { mode, rules: parsed }));
        } catch (err) {
          const fields = err instanceof ApiError ? (err.details.fields as { path: string; message: string }[] | undefined) : undefined;
          setProblems(fields?.length ? fields.map((f) => `${f.path}: ${f.message}`) : [errorText(err)]);
        }
      }}
    >
      <h2>Autopilot</h2>
      <ErrorBox error={ap.error} />
      <label>
        Mode
        <select name="mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value)}>
          <option value="observe">observe: record what the rules would do</option>
          <option value="enforce">enforce: do it</option>
        </select>
      </label>
      <label>
        Rules (JSON; match on <code>from</code>, <code>subject_contains</code>, <code>triage_label</code>, <code>risk_level</code>, <code>action</code>, <code>transport</code>; actions <code>label</code>, <code>archive</code>, <code>draft_reply</code>, <code>forward_to_runtime</code>, <code>block</code>)
        <textarea name="rules" rows={10} class="code" value={rules} onInput={(e) => setRules((e.target as HTMLTextAreaElement).value)} placeholder={JSON.stringify(RULE_EXAMPLE, null, 2)} />
      </label>
      <button type="submit" disabled={act.busy}>
        Save autopilot
      </button>
      {ap.data?.updated_at ? <span class="muted"> Last changed {fullTime(ap.data.updated_at)}.</span> : null}
      {problems.length ? (
        <ul class="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

function Suppressions({ api, accountId }: { api: Api; accountId: string }) {
  const list = useLoad(() => api.suppressions(accountId), [accountId]);
  const [address, setAddress] = useState("");
  const [reason, setReason] = useState("");
  const act = useAction();
  return (
    <div class="card">
      <h2>Suppressions (whole account)</h2>
      <ErrorBox error={list.error ?? act.error} />
      <ul class="plain">
        {(list.data?.items ?? []).map((s) => (
          <li key={s.id}>
            <code>{s.address}</code> {s.reason ? <span class="muted">{s.reason}</span> : null}{" "}
            <button type="button" class="link" onClick={() => void act.run(async () => (await api.removeSuppression(accountId, s.address), list.reload()))}>
              remove
            </button>
          </li>
        ))}
      </ul>
      {list.data && list.data.items.length === 0 ? <p class="muted">Nobody is suppressed.</p> : null}
      <form
        class="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await act.run(() => api.addSuppression(accountId, address.trim(), reason.trim() || undefined))) {
            setAddress("");
            setReason("");
            list.reload();
          }
        }}
      >
        <input type="email" name="address" placeholder="address@example.com" required value={address} onInput={(e) => setAddress((e.target as HTMLInputElement).value)} />
        <input name="reason" placeholder="reason (optional)" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={act.busy}>
          Suppress
        </button>
      </form>
    </div>
  );
}

const EMPTY_BINDING: Binding = { agentId: "", runtimeBaseUrl: "", permissionTier: "draft", policyMode: "draft-first", personaLabel: "default", enabled: true };

function BindingForm({ api, mailbox }: { api: Api; mailbox: Mailbox }) {
  const binding = useLoad(
    () => api.binding(mailbox.id).catch((e) => (e instanceof ApiError && e.status === 404 ? null : Promise.reject(e))),
    [mailbox.id],
  );
  const events = useLoad(() => api.runtimeEvents(mailbox.id), [mailbox.id]);
  const [form, setForm] = useState<Binding>(EMPTY_BINDING);
  const [shown, setShown] = useState<{ token?: string; secret?: string } | null>(null);
  const act = useAction();
  useEffect(() => setForm(binding.data ?? EMPTY_BINDING), [binding.data]);
  const field = (name: "agentId" | "runtimeBaseUrl" | "permissionTier" | "policyMode" | "personaLabel", label: string, options?: string[]) => (
    <label>
      {label}
      {options ? (
        <select name={name} value={String(form[name])} onChange={(e) => setForm({ ...form, [name]: (e.target as HTMLSelectElement).value })}>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      ) : (
        <input name={name} value={String(form[name] ?? "")} onInput={(e) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })} />
      )}
    </label>
  );
  return (
    <div class="card">
      <h2>Agent-runtime binding</h2>
      <ErrorBox error={binding.error} />
      {binding.data === null ? <p class="muted">This mailbox is not bound to an agent runtime.</p> : null}
      {binding.data?.deliveryUrl ? <p class="muted">Processed inbound messages are POSTed to {binding.data.deliveryUrl}.</p> : null}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const { agentId, runtimeBaseUrl, permissionTier, policyMode, personaLabel, enabled } = form;
          const r = await act.run(() => api.putBinding(mailbox.id, { agentId, runtimeBaseUrl, permissionTier, policyMode, personaLabel, enabled }));
          if (r) {
            binding.set(r.binding);
            if (r.runtime_token) setShown({ token: r.runtime_token, secret: r.signing_secret });
          }
        }}
      >
        {field("agentId", "Agent id")}
        {field("runtimeBaseUrl", "Runtime base URL")}
        {field("permissionTier", "Permission tier", ["read-only", "draft", "send", "admin-lite", "admin"])}
        {field("policyMode", "Policy mode", ["draft-first", "auto-send", "observe"])}
        {field("personaLabel", "Persona label")}
        <label class="check">
          <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: (e.target as HTMLInputElement).checked })} /> Enabled
        </label>
        <button type="submit" disabled={act.busy}>
          {binding.data ? "Update binding" : "Bind runtime"}
        </button>
        {binding.data ? (
          <button type="button" class="danger" disabled={act.busy} onClick={() => void act.run(async () => (await api.deleteBinding(mailbox.id), binding.set(null)))}>
            Remove binding
          </button>
        ) : null}
      </form>
      <ErrorBox error={act.error} />
      {shown?.token ? <ShownOnce label="Runtime token" value={shown.token} /> : null}
      {shown?.secret ? <ShownOnce label="Runtime signing secret" value={shown.secret} /> : null}
      <details>
        <summary>Routing log</summary>
        <ErrorBox error={events.error} />
        <ul class="plain">
          {(events.data ?? []).map((ev) => (
            <li key={ev.id}>
              <time>{fullTime(ev.created_at)}</time> <strong>{ev.kind}</strong> {ev.detail}{" "}
              {ev.message_id ? <a href={`#/m/${mailbox.id}/message/${ev.message_id}`}>message</a> : null}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

function ApiKeys({ api, mailbox }: { api: Api; mailbox: Mailbox }) {
  const keys = useLoad(() => api.apiKeys(mailbox.id), [mailbox.id]);
  const [name, setName] = useState("");
  const [token, setToken] = useState<string | null>(null);
  const act = useAction();
  return (
    <div class="card">
      <h2>API keys</h2>
      <ErrorBox error={keys.error ?? act.error} />
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Id</th>
            <th>Status</th>
            <th>Issued</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id} data-key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.id.slice(0, 8)}…</code>
              </td>
              <td>{k.status}</td>
              <td>{when(k.created_at)}</td>
              <td>
                {k.status === "active" ? (
                  <button type="button" class="danger" disabled={act.busy} onClick={() => void act.run(async () => (await api.revokeKey(mailbox.id, k.id), keys.reload()))}>
                    Revoke
                  </button>
                ) : (
                  <span class="muted">revoked {when(k.revoked_at)}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.issueKey(mailbox.id, name.trim()));
          if (r) {
            setToken(r.token);
            setName("");
            keys.reload();
          }
        }}
      >
        <input name="key-name" placeholder="Key name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={act.busy}>
          Issue key
        </button>
      </form>
      {token ? <ShownOnce label="New API key" value={token} /> : null}
    </div>
  );
}

export function SettingsScreen({ session, mailbox }: { session: Session; mailbox: Mailbox }) {
  const admin = session.who.kind === "admin";
  const accountId = admin ? accountOf(mailbox.id) : session.who.kind === "mailbox_key" ? session.who.account_id : undefined;
  return (
    <section class="settings">
      <h1>Mailbox settings</h1>
      <p class="muted">
        {mailbox.email_address} · agent protocol at <code>{mailbox.protocol_host}</code>
      </p>
      <div class="settings-grid">
        <PolicyForm api={session.api} mailbox={mailbox} />
        <AutopilotForm api={session.api} mailbox={mailbox} />
        {admin ? (
          <>
            <ApiKeys api={session.api} mailbox={mailbox} />
            <BindingForm api={session.api} mailbox={mailbox} />
            {accountId ? <Suppressions api={session.api} accountId={accountId} /> : <p class="muted card">Open this mailbox from Accounts to manage its account's suppressions.</p>}
          </>
        ) : (
          <p class="muted card">API keys, suppressions and the agent-runtime binding are managed with the admin token.</p>
        )}
      </div>
    </section>
  );
}
