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
} as const;

export const queuedText = (ids: readonly string[]) => `2.0.0 Ok: queued as ${ids.join(" ")}`;

/** smtp-server turns an error's responseCode and message into the reply line. */
export function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}
