import { useEffect, useState } from "preact/hooks";
import type { Draft, Mailbox } from "./api.ts";
import { ErrorBox, Status } from "./components.tsx";
import type { Live, Session } from "./session.ts";
import { fullTime, useAction, useLoad, when } from "./util.ts";

const addresses = (s: string) =>
  s
    .split(/[,\s]+/)
    .map((a) => a.trim())
    .filter(Boolean);

type Outcome = { kind: "sent"; messageId: string; status: string } | { kind: "discarded" };

function DraftCard({ session, mailbox, draft, onDone }: { session: Session; mailbox: Mailbox; draft: Draft; onDone: (o: Outcome) => void }) {
  const [to, setTo] = useState(draft.to.join(", "));
  const [cc, setCc] = useState(draft.cc.join(", "));
  const [subject, setSubject] = useState(draft.subject ?? "");
  const [text, setText] = useState(draft.text_body ?? "");
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [saved, setSaved] = useState(false);
  const act = useAction();
  const dirty = to !== draft.to.join(", ") || cc !== draft.cc.join(", ") || subject !== (draft.subject ?? "") || text !== (draft.text_body ?? "");

  const save = () => act.run(() => session.api.updateDraft(draft.id, { to: addresses(to), cc: addresses(cc), subject: subject || null, textBody: text || null }));
  const send = () =>
    act.run(async () => {
      // What the person sees is what goes out: unsaved edits are saved first.
      if (dirty && !(await save())) return;
      const r = await session.api.sendDraft(draft.id);
      onDone({ kind: "sent", messageId: r.message.id, status: r.message.status });
    });

  return (
    <li class="card draft" data-draft={draft.id}>
      <div class="muted">
        Draft · written {fullTime(draft.created_at)}
        {draft.updated_at && draft.updated_at !== draft.created_at ? ` · changed ${when(draft.updated_at)}` : ""}
      </div>
      <label>
        To <input name="to" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Cc <input name="cc" value={cc} onInput={(e) => setCc((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Subject <input name="subject" value={subject} onInput={(e) => setSubject((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Text
        <textarea name="text" rows={8} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      </label>
      {draft.html_body ? <p class="muted">This draft also has an HTML body, sent as written.</p> : null}
      <div class="actions">
        <button type="button" class="primary" disabled={act.busy} onClick={() => void send()}>
          Approve and send
        </button>
        <button
          type="button"
          disabled={act.busy || !dirty}
          onClick={async () => {
            if (await save()) setSaved(true);
          }}
        >
          Save changes
        </button>
        {confirmDiscard ? (
          <button type="button" class="danger" disabled={act.busy} onClick={() => void act.run(async () => (await session.api.deleteDraft(draft.id), onDone({ kind: "discarded" })))}>
            Confirm discard
          </button>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirmDiscard(true)}>
            Discard
          </button>
        )}
        {saved && !dirty ? <span class="muted">Saved.</span> : null}
      </div>
      <ErrorBox error={act.error} />
      <input type="hidden" value={mailbox.id} />
    </li>
  );
}

export function ApprovalsScreen({ session, mailbox, live }: { session: Session; mailbox: Mailbox; live: Live }) {
  const drafts = useLoad(() => session.api.drafts(mailbox.id), [mailbox.id]);
  const decisions = useLoad(() => session.api.decisions(mailbox.id, 50), [mailbox.id]);
  const [outcomes, setOutcomes] = useState<{ id: string; outcome: Outcome }[]>([]);
  useEffect(() => {
    if (live.version > 0) {
      drafts.reload();
      decisions.reload();
    }
  }, [live.version]);

  const items = (drafts.data?.items ?? []).filter((d) => !outcomes.some((o) => o.id === d.id));
  return (
    <section class="approvals">
      <h1>Drafts awaiting approval</h1>
      <p class="muted">Drafts an agent runtime wrote under a draft-first binding, or an agent saved through the API. Sending one goes through the same checks as any send.</p>
      {outcomes.map(({ id, outcome }) => (
        <p key={id} class="notice" role="status" data-outcome={outcome.kind}>
          {outcome.kind === "sent" ? (
            <>
              Sent: <a href={`#/m/${mailbox.id}/message/${outcome.messageId}`}>the message</a> is <Status status={outcome.status} />
            </>
          ) : (
            "Draft discarded."
          )}
        </p>
      ))}
      <ErrorBox error={drafts.error} />
      {drafts.data && items.length === 0 ? <p class="muted empty">No drafts waiting.</p> : null}
      <ol class="drafts">
        {items.map((d) => (
          <DraftCard key={d.id} session={session} mailbox={mailbox} draft={d} onDone={(outcome) => setOutcomes((o) => [{ id: d.id, outcome }, ...o])} />
        ))}
      </ol>
      {drafts.data && drafts.data.total > drafts.data.items.length ? <p class="muted">Showing the {drafts.data.items.length} most recently changed of {drafts.data.total}.</p> : null}

      <h2>Autopilot decisions</h2>
      <p class="muted">What the mailbox's autopilot rules decided for each processed message, newest first.</p>
      <ErrorBox error={decisions.error} />
      {decisions.data && decisions.data.length === 0 ? <p class="muted">No decisions yet.</p> : null}
      {decisions.data && decisions.data.length > 0 ? (
      <table class="decisions">
        <thead>
          <tr>
            <th>When</th>
            <th>Message</th>
            <th>Mode</th>
            <th>Rules matched</th>
            <th>What happened, and why</th>
          </tr>
        </thead>
        <tbody>
          {(decisions.data ?? []).map((d) => (
            <tr key={d.id}>
              <td>{when(d.created_at)}</td>
              <td>
                <a href={`#/m/${mailbox.id}/message/${d.message_id}`}>open</a>
              </td>
              <td>{d.mode}</td>
              <td>{d.matched_rules.length ? d.matched_rules.join(", ") : <span class="muted">none</span>}</td>
              <td>
                {d.blocked ? <span class="badge risk-high">blocked</span> : null}
                <ul class="plain">
                  {d.actions.map((a, i) => (
                    <li key={i}>
                      <code>{a.rule_id}</code>: {typeof a.action === "object" && a.action ? String((a.action as { type?: string }).type ?? JSON.stringify(a.action)) : String(a.action)} → <strong>{a.outcome}</strong>
                      {a.detail ? <span class="muted"> ({a.detail})</span> : null}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      ) : null}
    </section>
  );
}
