/** The fields of the mailbox policy a PUT may change; absent ones stay as they are. */
export interface PolicyPatch {
  allowOutbound?: boolean;
  allowAutoReply?: boolean;
  maxOutboundPerDay?: number;
}
