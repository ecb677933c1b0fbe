import { useEffect, useMemo, useState } from "preact/hooks";
import type { Label, Mailbox, Message } from "./api.ts";
import { AuthVerdicts, ErrorBox, Risk, Signals, Status, Triage } from "./components.tsx";
import { isUnread } from "./inbox.tsx";
import { go, type Live, type Session } from "./session.ts";
import { bytes, download, fullTime, typing, useAction, useKeys, useLoad, when } from "./util.ts";

/**
 * The policy inside the frame that shows a message's HTML: no script, no remote load of any
 * kind (images, styles, fonts, frames, prefetches), inline styles and data: images only.
 */
export const MAIL_FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:";

/**
 * The message's HTML made inert before it reaches the frame: parsed by DOMParser (a document
 * without a browsing context: nothing in it loads or runs), stripped of what could navigate the
 * frame or pull content on its own (meta refresh, base, link, script, frames, objects, forms'
 * targets, link targets), then framed with the policy above. The frame's sandbox (no
 * allow-scripts, no allow-same-origin, no popups, no top navigation) stays the last wall.
 */
export function inertMailDocument(html: string): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  doc.querySelectorAll("script, noscript, meta, base, link, iframe, frame, frameset, object, embed, applet, portal, template").forEach((e) => e.remove());
  for (const el of Array.from(doc.querySelectorAll("*"))) {
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || name === "srcset" || name === "ping" || name === "formaction" || name === "action" || name === "background" || name === "poster") el.removeAttribute(attr.name);
    }
    if (el.tagName === "A" || el.tagName === "AREA") {
      const href = el.getAttribute("href");
      if (href) el.setAttribute("title", `Link to ${href} (links are not followed from the console)`);
      el.removeAttribute("href");
      el.removeAttribute("target");
    }
    const src = el.getAttribute("src");
    if (src !== null && !src.startsWith("data:")) {
      el.setAttribute("data-blocked-src", src.slice(0, 200));
      el.removeAttribute("src");
    }
  }
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${MAIL_FRAME_CSP}"><meta name="color-scheme" content="light"></head><body>${doc.body?.innerHTML ?? ""}</body></html>`;
}

function MailHtml({ html }: { html: string }) {
  const srcdoc = useMemo(() => inertMailDocument(html), [html]);
  return <iframe class="mail-html" title="Message HTML (sandboxed, no scripts, no remote content)" sandbox="" referrerpolicy="no-referrer" srcdoc={srcdoc} />;
}

function Labels({ session, message, labels, onChange }: { session: Session; message: Message; labels: Label[]; onChange: (ids: string[], created?: Label) => void }) {
  const [name, setName] = useState("");
  const act = useAction();
  const applied = labels.filter((l) => message.labels.includes(l.id));
  const available = labels.filter((l) => !message.labels.includes(l.id));
  const set = (labelId: string, on: boolean, created?: Label) => act.run(async () => onChange((await session.api.setLabel(message.id, labelId, on)).labels, created));
  return (
    <div class="labels">
      {applied.map((l) => (
        <span key={l.id} class="chip" style={l.color ? { borderColor: l.color } : undefined}>
          {l.name}
          <button type="button" class="link" aria-label={`Remove label ${l.name}`} onClick={() => void set(l.id, false)}>
            ×
          </button>
        </span>
      ))}
      <form
        class="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const wanted = name.trim();
          if (!wanted) return;
          const existing = labels.find((l) => l.name.toLowerCase() === wanted.toLowerCase());
          if (existing) await set(existing.id, true);
          else {
            const created = await act.run(() => session.api.createLabel(message.mailbox_id, wanted));
            if (created) await set(created.id, true, created);
          }
          setName("");
        }}
      >
        <input list="label-names" name="label" placeholder="Add label" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} aria-label="Add label" />
        <datalist id="label-names">
          {available.map((l) => (
            <option key={l.id} value={l.name} />
          ))}
        </datalist>
        <button type="submit" disabled={act.busy}>
          Add
        </button>
      </form>
      <ErrorBox error={act.error} />
    </div>
  );
}

export function MessageScreen({ session, mailbox, id, live }: { session: Session; mailbox: Mailbox; id: string; live: Live }) {
  const api = session.api;
  const msg = useLoad(() => api.message(id), [id]);
  const labels = useLoad(() => api.labels(mailbox.id), [mailbox.id]);
  const m = msg.data;
  const delivery = useLoad(() => (m && m.direction === "outbound" ? api.delivery(m.id) : Promise.resolve([])), [m?.id, m?.direction]);
  const thread = useLoad(() => (m?.thread_id ? api.threadMessages(m.thread_id).then((r) => r.items) : Promise.resolve([])), [m?.thread_id]);
  const [view, setView] = useState<"text" | "html" | "source">("text");
  // A message opened before it was processed (or sent) shows its outcome when the stream tells of one.
  useEffect(() => {
    if (live.version > 0 && m && (m.status === "received" || m.status === "queued")) msg.reload();
  }, [live.version]);
  const act = useAction();

  // Opening an unread message marks it reviewed, as a mail client marks mail read.
  useEffect(() => {
    if (m && isUnread(m)) void api.review(m.id).then((r) => msg.set({ ...m, status: r.status, reviewed_at: new Date().toISOString() }), () => undefined);
  }, [m?.id]);

  const archive = () =>
    act.run(async () => {
      const r = await api.archive(id);
      if (m) msg.set({ ...m, status: r.status, archived_at: new Date().toISOString() });
    });

  useKeys((e) => {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "e") void archive();
    else if (e.key === "u" || e.key === "Escape") go(`m/${mailbox.id}/inbox`);
    else return;
    e.preventDefault();
  });

  if (msg.error) return <ErrorBox error={msg.error} />;
  if (!m) return <p class="muted">Loading…</p>;
  const inbound = m.direction === "inbound";
  const text = m.extracted_text ?? m.text_body;

  return (
    <article class="message" data-id={m.id}>
      <p>
        <a href={`#/m/${mailbox.id}/inbox`}>← Inbox</a> <span class="muted hint">e archive · u back</span>
      </p>
      <header class="message-head">
        <h1>{m.subject || "(no subject)"}</h1>
        <div class="meta">
          <div>
            <strong>From</strong> {m.from_address || "(none)"}
          </div>
          <div>
            <strong>To</strong> {m.to_address}
          </div>
          <div>
            <strong>Date</strong> <time dateTime={m.created_at}>{fullTime(m.created_at)}</time>
          </div>
          <div class="tags">
            <Status status={m.status} /> <span class="badge muted">{m.direction}</span> <span class="badge muted">{m.transport}</span>
          </div>
        </div>
        <div class="actions">
          <button type="button" onClick={() => void archive()} disabled={act.busy || m.status === "archived"}>
            {m.status === "archived" ? "Archived" : "Archive"}
          </button>
          <button type="button" onClick={() => void act.run(async () => download(await api.blob(`/v1/messages/${m.id}/raw`), `${m.id}.eml`))}>
            Download .eml
          </button>
        </div>
        <ErrorBox error={act.error} />
      </header>

      <div class="message-grid">
        <div class="message-body">
          <div class="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={view === "text"} onClick={() => setView("text")}>
              Extracted text
            </button>
            <button type="button" role="tab" aria-selected={view === "html"} disabled={!m.html_body} onClick={() => setView("html")}>
              HTML
            </button>
            <button type="button" role="tab" aria-selected={view === "source"} onClick={() => setView("source")}>
              Full text
            </button>
          </div>
          {view === "text" ? <pre class="text" data-view="extracted">{text ?? "(no text)"}</pre> : null}
          {view === "source" ? <pre class="text">{m.text_body ?? "(no text part)"}</pre> : null}
          {view === "html" && m.html_body ? <MailHtml html={m.html_body} /> : null}

          {m.attachments.length > 0 ? (
            <section>
              <h2>Attachments</h2>
              <ul class="attachments">
                {m.attachments.map((a) => (
                  <li key={a.id}>
                    <button type="button" class="link" onClick={() => void act.run(async () => download(await api.blob(`/v1/messages/${m.id}/attachments/${a.id}`), a.filename ?? a.id))}>
                      {a.filename ?? "(unnamed)"}
                    </button>{" "}
                    <span class="muted">
                      {a.mime_type} · {bytes(a.size)}
                    </span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          {(thread.data?.length ?? 0) > 1 ? (
            <section>
              <h2>Thread</h2>
              <ol class="thread">
                {thread.data!.map((t) => (
                  <li key={t.id} class={t.id === m.id ? "current" : ""}>
                    <a href={`#/m/${mailbox.id}/message/${t.id}`}>
                      <span class="who">{t.direction === "inbound" ? t.from_address : `You → ${t.to_address}`}</span> <span class="snippet">{t.snippet}</span> <time>{when(t.created_at)}</time>
                    </a>
                  </li>
                ))}
              </ol>
            </section>
          ) : null}

          <details class="headers">
            <summary>Headers ({m.headers.length})</summary>
            <table>
              <tbody>
                {m.headers.map((h, i) => (
                  <tr key={i}>
                    <th>{h.key}</th>
                    <td>{h.value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </div>

        <aside class="assessment" aria-label="Assessment">
          {inbound ? (
            <>
              <h2>Risk</h2>
              <p class="risk-line" data-risk={m.risk_level ?? ""}>
                <Risk level={m.risk_level} /> <Triage label={m.triage_label} />
              </p>
              <h2>Signals</h2>
              <Signals signals={m.suspicious_signals} />
              <h2>Authentication</h2>
              <AuthVerdicts auth={m.authentication} />
            </>
          ) : (
            <>
              <h2>Delivery</h2>
              <ErrorBox error={delivery.error} />
              <ol class="delivery" data-delivery>
                {(delivery.data ?? []).map((d) => (
                  <li key={d.id}>
                    <Status status={d.status} /> <time>{fullTime(d.created_at)}</time>
                    {d.detail ? <div class="muted">{d.detail}</div> : null}
                  </li>
                ))}
              </ol>
            </>
          )}
          <h2>Labels</h2>
          {labels.data ? (
            <Labels
              session={session}
              message={m}
              labels={labels.data}
              onChange={(ids, created) => {
                msg.set({ ...m, labels: ids });
                if (created) labels.set([...labels.data!, created]);
              }}
            />
          ) : (
            <ErrorBox error={labels.error} />
          )}
        </aside>
      </div>
    </article>
  );
}

