import type { Api, Whoami } from "./api.ts";

export interface Session {
  api: Api;
  who: Whoami;
}

/** What the open mailbox's event stream has told this tab: ids that arrived, and a counter. */
export interface Live {
  connected: boolean;
  version: number;
  arrived: Set<string>;
}

export const go = (path: string) => {
  location.hash = `#/${path}`;
};
