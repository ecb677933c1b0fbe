/**
 * Every reply text this listener chooses itself. Enhanced status codes are written into the
 * text because smtp-server's automatic ones are off: recipient verdicts already carry theirs.
 */
export const REPLY = {
  tooManyRecipients: { code: 452, text: "4.5.3 Too many recipients" },
  messageTooBig: { code: 552, text: "5.3.4 Message too big" },
  recipientLookupFailed: { code: 451, text: "4.3.0 Temporary failure checking the recipient, try again later" },
  storeFailed: { code: 451, text: "4.3.0 Temporary failure storing the message, try again later" },
  aborted: { code: 451, text: "4.3.0 Message incomplete" },
  unavailable: { code: 421, text: "4.3.0 Service temporarily unavailable, try again later" },
  // 421 closes the connection: mid-DATA there is no way back to command mode without the end marker.
  sessionTimeLimit: { code: 421, text: "4.4.2 Session time limit reached, closing connection" },
  dataTimeLimit: { code: 421, text: "4.4.2 DATA time limit reached, message not accepted" },
  dataTooSlow: { code: 421, text: "4.4.2 DATA too slow, message not accepted" },
  tooManyJunkCommands: { code: 421, text: "4.7.0 Too many commands without a message, closing connection" },
} as const;

export type Reply = { readonly code: number; readonly text: string };

/** Named after the refused group (an IPv4 address or an IPv6 /64), like smtp-server's maxClients reply. */
export const tooManyFromAddress = (hostname: string, group: string): Reply => ({
  code: 421,
  text: `4.7.0 ${hostname} Too many connections from ${group}, try again later`,
});

export const queuedText = (ids: readonly string[]) => `2.0.0 Ok: queued as ${ids.join(" ")}`;

/** smtp-server turns an error's responseCode and message into the reply line. */
export function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}
