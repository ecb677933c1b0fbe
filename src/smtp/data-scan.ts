/**
 * smtp-server looks for the end of DATA and for escape dots by walking every byte of every
 * chunk in JavaScript (SMTPStream._feedDataStream): about 6 ms of event loop per MiB. This
 * replaces that walk with a native search for a dot at the start of a line (`\n.`), the only
 * place either can be, and keeps the rest of the method as it is: same chunks emitted, same
 * remainder kept, same callbacks. smtp-server is pinned exactly; an upgrade rechecks this file
 * (test/smtp-server.test.ts and test/smtp-data-scan.test.ts cover it).
 */
import { SMTPStream } from "smtp-server/lib/smtp-stream.js";

const END_SEQUENCE = Buffer.from("\r\n.\r\n");
const DOT_START = Buffer.from("\n.");
const DATA_START_END = Buffer.from(".\r\n");

type Stream = {
  _dataStream: NodeJS.WritableStream & { writable: boolean; destroyed: boolean };
  _lastBytes: Buffer | false;
  _atDataStart: boolean;
  _countDataBytes(n: number): void;
  _endDataMode(chunk: Buffer | false, remainder: Buffer, done: () => void): void;
  _feedDataStream(chunk: Buffer, done: () => void): void;
};

/** SMTPStream._feedDataStream of smtp-server 3.x with the byte loop replaced by Buffer.indexOf. */
function feedDataStream(this: Stream, input: Buffer, done: () => void): void {
  const dataStream = this._dataStream;
  let chunk = input;
  if (this._lastBytes && this._lastBytes.length) {
    chunk = Buffer.concat([this._lastBytes, chunk], this._lastBytes.length + chunk.length);
    this._lastBytes = false;
  }
  let len = chunk.length;
  if (this._atDataStart && len >= 3 && Buffer.compare(chunk.subarray(0, 3), DATA_START_END) === 0) {
    this._endDataMode(false, chunk.subarray(3), done);
    return;
  }
  if (this._atDataStart && len >= 2 && chunk[0] === 0x2e && chunk[1] === 0x2e) {
    chunk = chunk.subarray(1);
    len--;
    this._atDataStart = false;
  }
  // The original visits i = 2 … len-3 where chunk[i] is a dot after a LF: here j = i - 1.
  for (let j = chunk.indexOf(DOT_START, 1); j >= 1 && j + 1 < len - 2; j = chunk.indexOf(DOT_START, j + 1)) {
    const i = j + 1;
    if (Buffer.compare(chunk.subarray(i - 2, i + 3), END_SEQUENCE) === 0) {
      const buf = chunk.subarray(0, i);
      this._countDataBytes(buf.length);
      this._endDataMode(buf, chunk.subarray(i + 3), done);
      return;
    }
    if (chunk[i + 1] === 0x2e) {
      const buf = chunk.subarray(0, i);
      this._lastBytes = false;
      this._countDataBytes(buf.length);
      if (dataStream.writable) dataStream.write(buf);
      const rest = chunk.subarray(i + 1);
      setImmediate(() => this._feedDataStream(rest, done));
      return;
    }
  }
  this._lastBytes = chunk.length < 4 ? chunk : chunk.subarray(chunk.length - 4);
  if (this._lastBytes.length < chunk.length) {
    const buf = chunk.subarray(0, chunk.length - this._lastBytes.length);
    this._countDataBytes(buf.length);
    if (dataStream.writable) {
      const handled = dataStream.write(buf);
      if (!handled && !dataStream.destroyed) {
        const onDrain = () => {
          dataStream.removeListener("drain", onDrain);
          dataStream.removeListener("close", onDrain);
          done();
        };
        dataStream.once("drain", onDrain);
        dataStream.once("close", onDrain);
      } else {
        return done();
      }
    } else {
      return done();
    }
  } else {
    return done();
  }
}

let installed = false;

/** Installs the native-search DATA scan on smtp-server's SMTPStream (once per process). */
export function installDataScan(): void {
  if (installed) return;
  installed = true;
  (SMTPStream.prototype as unknown as Stream)._feedDataStream = feedDataStream;
}

export { feedDataStream as _feedDataStreamForTests, SMTPStream };
