import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { AccountsScreen } from "./accounts.tsx";
import { Api, ApiError, type Mailbox } from "./api.ts";
import { ApprovalsScreen } from "./approvals.tsx";
import { ErrorBox } from "./components.tsx";
import { InboxScreen } from "./inbox.tsx";
import { MessageScreen } from "./message.tsx";
import { go, type Live, type Session } from "./session.ts";
import { SettingsScreen } from "./settings.tsx";
import { openEventStream } from "./sse.ts";
import { errorText } from "./util.ts";
import { WebhooksScreen } from "./webhooks.tsx";

const TOKEN_KEY = "mailroom.console.token";

type Route = { screen: "accounts" } | { screen: "inbox" | "approvals" | "webhooks" | "settings"; mailbox: string } | { screen: "message"; mailbox: string; id: string };

function parseRoute(hash: string): Route | null {
  let parts: string[];
  try {
    parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return null; // a hand-edited hash that is not valid percent-encoding: go home
  }
  if (parts[0] === "accounts") return { screen: "accounts" };
  if (parts[0] === "m" && parts[1]) {
    const mailbox = parts[1];
    if (parts[2] === "message" && parts[3]) return { screen: "message", mailbox, id: parts[3] };
    const s = parts[2] ?? "inbox";
    if (s === "inbox" || s === "approvals" || s === "webhooks" || s === "settings") return { screen: s, mailbox };
  }
  return null;
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function SignIn({ onSignedIn, initialError }: { onSignedIn: (s: Session, token: string) => void; initialError: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const api = new Api(token.trim());
    try {
      onSignedIn({ api, who: await api.whoami() }, token.trim());
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} class="card">
        <h1>Mailroom console</h1>
        <p class="muted">Sign in with the admin token, or with a mailbox API key (<code>svc_…</code>) to see that mailbox only.</p>
        <label>
          Token
          <input name="token" type="password" autoComplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} autoFocus required />
        </label>
        <button type="submit" disabled={busy || token.trim() === ""}>
          Sign in
        </button>
        <ErrorBox error={error} />
      </form>
    </main>
  );
}

function MailboxNav({ session, mailbox, screen, live }: { session: Session; mailbox: Mailbox | undefined; screen: string; live: Live }) {
  const id = mailbox?.id;
  const admin = session.who.kind === "admin";
  const link = (s: string, label: string) =>
    id ? (
      <a href={`#/m/${id}/${s}`} class={screen === s || (s === "inbox" && screen === "message") ? "active" : ""} aria-current={screen === s ? "page" : undefined}>
        {label}
      </a>
    ) : null;
  return (
    <nav class="mailbox-nav" aria-label="Mailbox">
      {link("inbox", "Inbox")}
      {link("approvals", "Approvals")}
      {admin ? link("webhooks", "Webhooks") : null}
      {link("settings", "Settings")}
      <span class={`live ${live.connected ? "on" : "off"}`} title={live.connected ? "receiving events live" : "reconnecting to the event stream"}>
        {live.connected ? "● live" : "○ offline"}
      </span>
    </nav>
  );
}

function Shell({ session, signOut }: { session: Session; signOut: () => void }) {
  const hash = useHash();
  const admin = session.who.kind === "admin";
  const home = session.who.kind === "mailbox_key" ? `m/${session.who.mailbox.id}/inbox` : "accounts";
  const route = parseRoute(hash);
  useEffect(() => {
    if (!route) go(home);
  }, [route === null]);

  const mailboxId = route && "mailbox" in route ? route.mailbox : undefined;
  const [mailbox, setMailbox] = useState<Mailbox | undefined>(session.who.kind === "mailbox_key" ? session.who.mailbox : undefined);
  const [mailboxError, setMailboxError] = useState<string | null>(null);
  useEffect(() => {
    if (!mailboxId || mailbox?.id === mailboxId) return;
    setMailboxError(null);
    session.api.mailbox(mailboxId).then(setMailbox, (e) => setMailboxError(errorText(e)));
  }, [mailboxId]);

  const [live, setLive] = useState<Live>({ connected: false, version: 0, arrived: new Set() });
  useEffect(() => {
    if (!mailboxId) return;
    setLive({ connected: false, version: 0, arrived: new Set() });
    return openEventStream(
      session.api.token,
      mailboxId,
      (e) => {
        if (!e.event.startsWith("message.")) return;
        const id = typeof e.payload.id === "string" ? e.payload.id : null;
        setLive((l) => {
          const arrived = new Set(l.arrived);
          if (id && e.event === "message.received") arrived.add(id);
          return { ...l, version: l.version + 1, arrived };
        });
      },
      (connected) => setLive((l) => (l.connected === connected ? l : { ...l, connected })),
    );
  }, [mailboxId]);

  let body = null;
  if (!route) body = null;
  else if (route.screen === "accounts") body = admin ? <AccountsScreen api={session.api} /> : <p class="error">The accounts screen needs the admin token.</p>;
  else if (mailboxError) body = <ErrorBox error={mailboxError} />;
  else if (!mailbox || mailbox.id !== route.mailbox) body = <p class="muted">Loading…</p>;
  else if (route.screen === "inbox") body = <InboxScreen session={session} mailbox={mailbox} live={live} />;
  else if (route.screen === "message") body = <MessageScreen key={route.id} session={session} mailbox={mailbox} id={route.id} live={live} />;
  else if (route.screen === "approvals") body = <ApprovalsScreen session={session} mailbox={mailbox} live={live} />;
  else if (route.screen === "webhooks") body = <WebhooksScreen api={session.api} mailbox={mailbox} />;
  else if (route.screen === "settings") body = <SettingsScreen session={session} mailbox={mailbox} />;

  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href={`#/${home}`}>
          Mailroom
        </a>
        {admin ? (
          <a href="#/accounts" class={route?.screen === "accounts" ? "active" : ""}>
            Accounts
          </a>
        ) : null}
        {mailbox && route && route.screen !== "accounts" ? (
          <span class="mailbox-name" title={mailbox.protocol_host}>
            {mailbox.email_address}
            {mailbox.status === "disabled" ? <span class="badge status-failed">disabled</span> : null}
          </span>
        ) : null}
        <span class="who">{admin ? "admin" : "mailbox key"}</span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      {mailbox && route && route.screen !== "accounts" ? <MailboxNav session={session} mailbox={mailbox} screen={route.screen} live={live} /> : null}
      <main class="content">{body}</main>
    </div>
  );
}

const WHO_KEY = "mailroom.console.who";

/**
 * The session of this tab: the token and who it is, kept in sessionStorage (gone with the
 * tab). A reload renders at once from what was kept and checks the token again meanwhile;
 * a token no longer valid (revoked) signs the tab out.
 */
function restore(): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const who = sessionStorage.getItem(WHO_KEY);
  if (!token || !who) return null;
  try {
    return { api: new Api(token), who: JSON.parse(who) };
  } catch {
    return null;
  }
}

function App() {
  const [session, setSession] = useState<Session | null>(restore);
  const [error, setError] = useState<string | null>(null);
  const signOut = useMemo(
    () => () => {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(WHO_KEY);
      setSession(null);
      location.hash = "";
    },
    [],
  );
  useEffect(() => {
    if (!session) return;
    session.api.whoami().then(
      (who) => sessionStorage.setItem(WHO_KEY, JSON.stringify(who)),
      (e) => {
        if (e instanceof ApiError && e.status === 401) {
          setError(errorText(e));
          signOut();
        }
      },
    );
  }, [session?.api.token]);
  if (!session)
    return (
      <SignIn
        initialError={error}
        onSignedIn={(s, token) => {
          sessionStorage.setItem(TOKEN_KEY, token);
          sessionStorage.setItem(WHO_KEY, JSON.stringify(s.who));
          setSession(s);
          go(s.who.kind === "mailbox_key" ? `m/${s.who.mailbox.id}/inbox` : "accounts");
        }}
      />
    );
  return <Shell session={session} signOut={signOut} />;
}

render(<App />, document.getElementById("app")!);
