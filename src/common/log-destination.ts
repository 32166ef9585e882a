/**
 * Where the process's log lines go: standard output, never waited on. A pipe
 * or socket (a log shipper) is written asynchronously with at most
 * LOG_BUFFER_BYTES queued; lines that do not fit are dropped and counted
 * (chainproxy_log_lines_dropped_total), so a stalled reader can slow neither
 * serving nor shutdown, and exit never flushes. A file or /dev/null is
 * written directly (it does not stall); a terminal goes through process.stdout.
 */
import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { isatty } from 'node:tty';

/** Bytes of log output queued for a slow reader before lines are dropped. */
const LOG_BUFFER_BYTES = 1024 * 1024;

let dropped = 0;

/** Log lines dropped since start (a stalled or closed reader). */
export function droppedLogLines(): number {
  return dropped;
}

export interface LogDestination {
  write(line: string): void;
}

function socketDestination(fd: number, maxBytes: number): LogDestination {
  const socket = new Socket({ fd, readable: false, writable: true });
  socket.unref();
  let broken = false;
  socket.on('error', () => {
    broken = true; // the reader went away: every later line is dropped
  });
  return {
    write(line) {
      if (broken || socket.writableLength + line.length > maxBytes) dropped++;
      else socket.write(line);
    },
  };
}

function directDestination(fd: number): LogDestination {
  return {
    write(line) {
      try {
        writeSync(fd, line);
      } catch {
        dropped++;
      }
    },
  };
}

/** The destination for file descriptor `fd` (1: standard output). */
export function logDestination(fd = 1, maxBytes = LOG_BUFFER_BYTES): LogDestination {
  if (fd === 1 && isatty(fd)) return { write: (line) => void process.stdout.write(line) };
  const st = fstatSync(fd);
  return st.isFIFO() || st.isSocket() ? socketDestination(fd, maxBytes) : directDestination(fd);
}
