/**
 * Ask timeouts without a timer per ask. Asks with the same timeout are armed in time order,
 * so their deadlines are already sorted: one FIFO list per timeout value and one timer for
 * the list's head. Arming and disarming are O(1) list operations, which matters because
 * every HTTP request makes a couple of asks and most are answered within microseconds.
 */
export interface Deadlined {
  deadline: number;
  dprev: Deadlined | null;
  dnext: Deadlined | null;
  dlist: DeadlineList | null;
  /** Called once the deadline has passed while still armed. */
  onDeadline(): void;
}

export class DeadlineList {
  private head: Deadlined | null = null;
  private tail: Deadlined | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly timeoutMs: number) {}

  arm(item: Deadlined): void {
    item.deadline = performance.now() + this.timeoutMs;
    item.dlist = this;
    item.dprev = this.tail;
    item.dnext = null;
    if (this.tail) this.tail.dnext = item;
    else this.head = item;
    this.tail = item;
    if (this.timer === undefined) this.schedule(item.deadline);
  }

  disarm(item: Deadlined): void {
    if (item.dlist !== this) return;
    if (item.dprev) item.dprev.dnext = item.dnext;
    else this.head = item.dnext;
    if (item.dnext) item.dnext.dprev = item.dprev;
    else this.tail = item.dprev;
    item.dprev = item.dnext = item.dlist = null;
    // The timer stays: when it fires it finds the new head and re-arms for it. Cancelling and
    // re-creating it on every disarm would cost exactly what this class exists to save.
  }

  private schedule(at: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - performance.now()));
    // It outlives the asks it was armed for; it must not keep an otherwise finished process up.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.deadline <= now) {
      const item = this.head;
      this.disarm(item);
      item.onDeadline();
    }
    if (this.head) this.schedule(this.head.deadline);
  }
}

const lists = new Map<number, DeadlineList>();

export function deadlineList(timeoutMs: number): DeadlineList {
  let list = lists.get(timeoutMs);
  if (!list) {
    list = new DeadlineList(timeoutMs);
    lists.set(timeoutMs, list);
  }
  return list;
}
