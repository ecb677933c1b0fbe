import { Fragment } from "preact";
import { useState } from "preact/hooks";
import type { Api, DeliveryAttempt, Mailbox, Webhook } from "./api.ts";
import { ErrorBox, ShownOnce } from "./components.tsx";
import { EVENTS, fullTime, useAction, useLoad } from "./util.ts";

function pretty(body: string | null | undefined): string {
  if (!body) return "";
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Deliveries({ api, endpoint }: { api: Api; endpoint: Webhook }) {
  const history = useLoad(() => api.deliveries(endpoint.id, 100), [endpoint.id]);
  const [open, setOpen] = useState<string | null>(null);
  const [since, setSince] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const act = useAction();
  const replay = (a: DeliveryAttempt) =>
    act.run(async () => {
      const r = await api.replay(endpoint.id, a.delivery_id);
      setNotice(`Replayed: attempt ${r.attempt} ${r.success ? "succeeded" : "failed"}${r.status_code ? ` (HTTP ${r.status_code})` : r.error ? ` (${r.error})` : ""} in ${r.duration_ms} ms.`);
      history.reload();
    });
  const replayFailed = () =>
    act.run(async () => {
      const r = await api.replayFailed(endpoint.id, since ? new Date(since).toISOString() : undefined);
      setNotice(`${r.replayed} failed deliver${r.replayed === 1 ? "y" : "ies"} put back on a fresh retry schedule.`);
      history.reload();
    });
  return (
    <section class="deliveries" data-endpoint={endpoint.id}>
      <h2>Delivery history</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void replayFailed();
        }}
      >
        <label>
          Replay every failed delivery since <input type="datetime-local" name="since" value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={act.busy}>
          Replay failed
        </button>
        <button type="button" class="link" onClick={history.reload}>
          Refresh
        </button>
      </form>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorBox error={act.error ?? history.error} />
      {history.data && history.data.length === 0 ? <p class="muted">No attempts yet.</p> : null}
      <table class="attempts">
        <thead>
          <tr>
            <th>When</th>
            <th>Event</th>
            <th>Attempt</th>
            <th>Result</th>
            <th>Duration</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(history.data ?? []).map((a) => (
            <Fragment key={a.id}>
              <tr class={a.success ? "ok" : "bad"} data-attempt={a.id} data-delivery={a.delivery_id}>
                <td>{fullTime(a.finished_at)}</td>
                <td>{a.event ?? ""}</td>
                <td>
                  #{a.attempt} <span class="muted">{a.trigger}</span>
                </td>
                <td>
                  {a.success ? "✓" : "✗"} {a.status_code ?? a.error ?? ""}
                  {a.delivery_status ? <span class="muted"> · delivery {a.delivery_status}</span> : null}
                </td>
                <td>{a.duration_ms} ms</td>
                <td class="row-actions">
                  <button type="button" class="link" onClick={() => setOpen(open === a.id ? null : (a.id as string))}>
                    {open === a.id ? "Hide" : "Details"}
                  </button>
                  <button type="button" disabled={act.busy} onClick={() => void replay(a)} data-replay={a.delivery_id}>
                    Replay
                  </button>
                </td>
              </tr>
              {open === a.id ? (
                <tr class="detail">
                  <td colSpan={6}>
                    <div class="two">
                      <div>
                        <h3>Request</h3>
                        <p class="muted">POST {String(a.url ?? endpoint.url)}</p>
                        <pre>{pretty(a.request_body as string | null)}</pre>
                      </div>
                      <div>
                        <h3>Response</h3>
                        <p class="muted">
                          {a.status_code ? `HTTP ${a.status_code}` : "no response"} {a.error ? `· ${a.error}` : ""} · {a.duration_ms} ms
                        </p>
                        <pre>{a.response_body ?? ""}</pre>
                      </div>
                    </div>
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function WebhooksScreen({ api, mailbox }: { api: Api; mailbox: Mailbox }) {
  const endpoints = useLoad(() => api.webhooks(mailbox.id), [mailbox.id]);
  const [selected, setSelected] = useState<string | null>(null);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["message.received", "message.processed", "message.sent"]);
  const [secret, setSecret] = useState<string | null>(null);
  const act = useAction();
  const current = endpoints.data?.find((e) => e.id === selected) ?? endpoints.data?.[0];
  return (
    <section class="webhooks">
      <h1>Webhooks</h1>
      <ErrorBox error={endpoints.error} />
      <table class="endpoints">
        <thead>
          <tr>
            <th>URL</th>
            <th>Events</th>
            <th>Status</th>
            <th>Failures in a row</th>
          </tr>
        </thead>
        <tbody>
          {(endpoints.data ?? []).map((e) => (
            <tr key={e.id} class={current?.id === e.id ? "selected" : ""} onClick={() => setSelected(e.id)} data-webhook={e.id}>
              <td>
                <button type="button" class="link" onClick={() => setSelected(e.id)}>
                  {e.url}
                </button>
              </td>
              <td>{e.events.join(", ")}</td>
              <td>
                <span class={`badge ${e.status === "active" ? "risk-low" : "risk-high"}`}>{e.status}</span>
                {e.enabled === false ? <span class="badge muted">disabled</span> : null}
              </td>
              <td>{e.consecutive_failures ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {endpoints.data && endpoints.data.length === 0 ? <p class="muted">No endpoints.</p> : null}
      <details class="card">
        <summary>Add an endpoint</summary>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await act.run(() => api.createWebhook(mailbox.id, url.trim(), events));
            if (r) {
              setSecret(r.signing_secret);
              setUrl("");
              endpoints.reload();
            }
          }}
        >
          <label>
            URL <input type="url" name="url" required value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
          </label>
          <fieldset>
            <legend>Events</legend>
            {EVENTS.map((ev) => (
              <label key={ev} class="check">
                <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents((cur) => ((e.target as HTMLInputElement).checked ? [...cur, ev] : cur.filter((x) => x !== ev)))} /> {ev}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={act.busy || events.length === 0}>
            Add endpoint
          </button>
        </form>
        <ErrorBox error={act.error} />
      </details>
      {secret ? <ShownOnce label="Signing secret" value={secret} /> : null}
      {current ? <Deliveries key={current.id} api={api} endpoint={current} /> : null}
    </section>
  );
}
