import { useEffect, useRef, useState } from "preact/hooks";
import type { Mailbox, MessageFilters, MessageItem, Paged } from "./api.ts";
import { ErrorBox, Risk, Status, Triage } from "./components.tsx";
import { go, type Live, type Session } from "./session.ts";
import { errorText, RISK_LEVELS, STATUSES, TRIAGE_LABELS, typing, useKeys, when } from "./util.ts";

const PAGE_SIZE = 50;

interface InboxState {
  filters: { direction: string; status: string; triage_label: string; risk_level: string };
  query: string;
  page: number;
  selected: number;
}

/** Kept per mailbox for the life of the tab, so going back from a message restores the list as it was. */
const remembered = new Map<string, InboxState>();
const fresh = (): InboxState => ({ filters: { direction: "", status: "", triage_label: "", risk_level: "" }, query: "", page: 1, selected: 0 });

/** Our filters as search operators, so a search honours them too (README "Search"). */
function searchQuery(s: InboxState): string {
  const ops: string[] = [];
  if (s.filters.direction) ops.push(`is:${s.filters.direction}`);
  if (s.filters.risk_level) ops.push(`risk:${s.filters.risk_level}`);
  if (s.filters.triage_label) ops.push(`triage:${s.filters.triage_label}`);
  if (["archived", "reviewed", "processed"].includes(s.filters.status)) ops.push(`is:${s.filters.status}`);
  return [s.query.trim(), ...ops].join(" ");
}

export const isUnread = (m: MessageItem) => m.direction === "inbound" && (m.status === "received" || m.status === "processed");

export function InboxScreen({ session, mailbox, live }: { session: Session; mailbox: Mailbox; live: Live }) {
  const [state, setStateRaw] = useState<InboxState>(() => remembered.get(mailbox.id) ?? fresh());
  const setState = (f: (s: InboxState) => InboxState) =>
    setStateRaw((s) => {
      const next = f(s);
      remembered.set(mailbox.id, next);
      return next;
    });
  const [draftQuery, setDraftQuery] = useState(state.query);
  const [list, setList] = useState<Paged<MessageItem> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [pendingLive, setPendingLive] = useState(0);
  const searchRef = useRef<HTMLInputElement>(null);
  const seq = useRef(0);
  const searching = state.query.trim() !== "";

  const load = () => {
    const mine = ++seq.current;
    setLoading(true);
    const filters: MessageFilters = {};
    for (const [k, v] of Object.entries(state.filters)) if (v) filters[k as keyof MessageFilters] = v;
    const req: Promise<Paged<MessageItem>> = searching
      ? session.api.search(mailbox.id, searchQuery(state), 100).then((r) => {
          // The status filter has no operator for every status: the rest is applied here.
          const items = state.filters.status && !["archived", "reviewed", "processed"].includes(state.filters.status) ? r.items.filter((m) => m.status === state.filters.status) : r.items;
          return { items, page: 1, limit: 100, total: items.length, total_pages: 1 };
        })
      : session.api.messages(mailbox.id, state.page, PAGE_SIZE, filters);
    req.then(
      (r) => {
        if (mine !== seq.current) return;
        setList(r);
        setError(null);
        setLoading(false);
        setPendingLive(0);
      },
      (e) => {
        if (mine !== seq.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
  };
  useEffect(load, [mailbox.id, state.page, state.query, state.filters]);

  // Live: the first page without a search follows the stream; elsewhere a banner offers to refresh.
  const lastVersion = useRef(live.version);
  useEffect(() => {
    if (live.version === lastVersion.current) return;
    lastVersion.current = live.version;
    if (state.page === 1 && !searching) {
      const t = setTimeout(load, 150);
      return () => clearTimeout(t);
    }
    setPendingLive((n) => n + 1);
  }, [live.version]);

  const items = list?.items ?? [];
  const selected = Math.min(state.selected, Math.max(0, items.length - 1));
  const open = (m: MessageItem | undefined) => m && go(`m/${mailbox.id}/message/${m.id}`);
  const archive = async (m: MessageItem | undefined) => {
    if (!m) return;
    try {
      await session.api.archive(m.id);
      load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  useKeys((e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(e)) {
      if (e.key === "Escape") (e.target as HTMLElement).blur();
      return;
    }
    const last = items.length - 1;
    // From the state, not this render's `selected`: two presses before a render move two rows.
    if (e.key === "j" || e.key === "ArrowDown") setState((s) => ({ ...s, selected: Math.max(0, Math.min(Math.min(s.selected, last) + 1, last)) }));
    else if (e.key === "k" || e.key === "ArrowUp") setState((s) => ({ ...s, selected: Math.max(Math.min(s.selected, last) - 1, 0) }));
    else if (e.key === "Enter" || e.key === "o") open(items[selected]);
    else if (e.key === "e") void archive(items[selected]);
    else if (e.key === "/") searchRef.current?.focus();
    else return;
    e.preventDefault();
  });

  useEffect(() => {
    document.querySelector(`[data-row="${selected}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  const filter = (name: keyof InboxState["filters"], label: string, values: string[]) => (
    <label class="filter">
      <span>{label}</span>
      <select
        name={name}
        value={state.filters[name]}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          setState((s) => ({ ...s, page: 1, selected: 0, filters: { ...s.filters, [name]: v } }));
        }}
      >
        <option value="">all</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v.replace("_", " ")}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section class="inbox">
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setState((s) => ({ ...s, query: draftQuery, page: 1, selected: 0 }));
        }}
      >
        <input
          ref={searchRef}
          type="search"
          name="q"
          placeholder='Search: words, "phrase", from:, subject:, label:, has:attachment, risk:high, before:2026-01-01 (press /)'
          value={draftQuery}
          onInput={(e) => setDraftQuery((e.target as HTMLInputElement).value)}
          aria-label="Search"
        />
        <button type="submit">Search</button>
        {searching ? (
          <button
            type="button"
            class="link"
            onClick={() => {
              setDraftQuery("");
              setState((s) => ({ ...s, query: "", page: 1, selected: 0 }));
            }}
          >
            Clear
          </button>
        ) : null}
      </form>
      <div class="filters">
        {filter("direction", "Direction", ["inbound", "outbound"])}
        {filter("status", "Status", STATUSES)}
        {filter("triage_label", "Triage", TRIAGE_LABELS)}
        {filter("risk_level", "Risk", RISK_LEVELS)}
      </div>
      <ErrorBox error={error} />
      {pendingLive > 0 ? (
        <button type="button" class="banner" onClick={() => (searching ? load() : setState((s) => ({ ...s, page: 1, selected: 0 })))}>
          New activity in this mailbox: show the latest
        </button>
      ) : null}
      <div class="list-head">
        <span class="muted" data-total={list?.total ?? ""}>
          {list ? (searching ? `${list.total} found` : `${list.total} messages`) : ""}
          {loading ? " · loading…" : ""}
        </span>
        <span class="muted hint">j/k move · enter open · e archive · / search</span>
      </div>
      <ol class="messages" aria-label="Messages">
        {items.map((m, i) => {
          const unread = isUnread(m);
          const isNew = live.arrived.has(m.id);
          return (
            <li key={m.id} data-row={i} data-id={m.id} class={`row${i === selected ? " selected" : ""}${unread ? " unread" : ""}${isNew ? " new" : ""}`} aria-selected={i === selected}>
              <a href={`#/m/${mailbox.id}/message/${m.id}`} onClick={() => setState((s) => ({ ...s, selected: i }))}>
                <span class="who">
                  {unread ? <span class="dot" title="unread" aria-label="unread" /> : null}
                  {m.direction === "inbound" ? m.from_address || "(no sender)" : `To: ${m.to_address}`}
                </span>
                <span class="subject">
                  {isNew ? <span class="badge new-badge">new</span> : null}
                  {m.subject || "(no subject)"} <span class="snippet">{m.snippet}</span>
                </span>
                <span class="tags">
                  {m.direction === "inbound" ? <Risk level={m.risk_level} /> : <Status status={m.status} />}
                  <Triage label={m.triage_label} />
                  {m.transport === "agent-json" ? <span class="badge muted">agent</span> : null}
                </span>
                <time dateTime={m.created_at}>{when(m.created_at)}</time>
              </a>
            </li>
          );
        })}
      </ol>
      {list && items.length === 0 && !loading ? <p class="muted empty">No messages{searching ? " match" : ""}.</p> : null}
      {list && !searching && list.total_pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={state.page <= 1} onClick={() => setState((s) => ({ ...s, page: s.page - 1, selected: 0 }))}>
            ← Newer
          </button>
          <span>
            Page {state.page} of {list.total_pages}
          </span>
          <button type="button" disabled={state.page >= list.total_pages} onClick={() => setState((s) => ({ ...s, page: s.page + 1, selected: 0 }))}>
            Older →
          </button>
        </nav>
      ) : null}
    </section>
  );
}
