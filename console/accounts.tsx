import { useState } from "preact/hooks";
import type { Account, Api, Mailbox } from "./api.ts";
import { ErrorBox } from "./components.tsx";
import { fullTime, useAction, useLoad } from "./util.ts";

const ACCOUNT_OF = "mailroom.console.account-of.";

/** Which account a mailbox belongs to, as the accounts screen saw it (Get Mailbox does not say). */
export const accountOf = (mailboxId: string): string | undefined => sessionStorage.getItem(ACCOUNT_OF + mailboxId) ?? undefined;
const remember = (mailboxes: Mailbox[], accountId: string) => mailboxes.forEach((m) => sessionStorage.setItem(ACCOUNT_OF + m.id, accountId));

function AccountMailboxes({ api, account }: { api: Api; account: Account }) {
  const list = useLoad(async () => {
    const r = await api.accountMailboxes(account.id);
    remember(r.mailboxes, account.id);
    return r.mailboxes;
  }, [account.id]);
  const [slug, setSlug] = useState("");
  const act = useAction();
  return (
    <div class="account-mailboxes">
      <ErrorBox error={list.error ?? act.error} />
      <table>
        <thead>
          <tr>
            <th>Address</th>
            <th>Kind</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((m) => (
            <tr key={m.id} data-mailbox={m.id}>
              <td>
                <a href={`#/m/${m.id}/inbox`}>{m.email_address}</a>
              </td>
              <td>{m.kind}</td>
              <td>
                <span class={`badge ${m.status === "active" ? "risk-low" : "status-failed"}`}>{m.status}</span>
              </td>
              <td class="row-actions">
                <a href={`#/m/${m.id}/inbox`}>Open</a>
                <button
                  type="button"
                  disabled={act.busy}
                  onClick={() =>
                    void act.run(async () => {
                      const r = await api.setMailboxEnabled(m.id, m.status !== "active");
                      list.set((list.data ?? []).map((x) => (x.id === m.id ? { ...x, status: r.mailbox.status as Mailbox["status"] } : x)));
                    })
                  }
                >
                  {m.status === "active" ? "Disable" : "Enable"}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await act.run(() => api.createMailbox(account.id, slug.trim()))) {
            setSlug("");
            list.reload();
          }
        }}
      >
        <input name="mailbox-slug" placeholder="new agent mailbox slug" required value={slug} onInput={(e) => setSlug((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={act.busy}>
          Create mailbox
        </button>
      </form>
    </div>
  );
}

export function AccountsScreen({ api }: { api: Api }) {
  const [page, setPage] = useState(1);
  const accounts = useLoad(() => api.accounts(page), [page]);
  const [open, setOpen] = useState<string | null>(null);
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const act = useAction();
  return (
    <section class="accounts">
      <h1>Accounts</h1>
      <form
        class="inline card"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.createAccount(slug.trim(), name.trim()));
          if (r) {
            setSlug("");
            setName("");
            setOpen(r.account.id);
            setPage(1);
            accounts.reload();
          }
        }}
      >
        <input name="account-slug" placeholder="slug (e.g. acme)" required value={slug} onInput={(e) => setSlug((e.target as HTMLInputElement).value)} />
        <input name="display-name" placeholder="display name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={act.busy}>
          Create account
        </button>
      </form>
      <ErrorBox error={act.error ?? accounts.error} />
      <ul class="account-list">
        {(accounts.data?.items ?? []).map((a) => (
          <li key={a.id} class="card" data-account={a.slug}>
            <button type="button" class="link account-toggle" aria-expanded={open === a.id} onClick={() => setOpen(open === a.id ? null : a.id)}>
              <strong>{a.display_name}</strong> <code>{a.slug}</code>
            </button>{" "}
            <span class="muted">created {fullTime(a.created_at)}</span>
            {open === a.id ? <AccountMailboxes api={api} account={a} /> : null}
          </li>
        ))}
      </ul>
      {accounts.data && accounts.data.total_pages > 1 ? (
        <nav class="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            ← Newer
          </button>
          <span>
            Page {page} of {accounts.data.total_pages}
          </span>
          <button type="button" disabled={page >= accounts.data.total_pages} onClick={() => setPage(page + 1)}>
            Older →
          </button>
        </nav>
      ) : null}
    </section>
  );
}
