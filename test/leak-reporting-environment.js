// jest's node environment, plus a report of what a test file left running: a handle it opened (socket,
// server, child process, thread, timer) that still holds the process 1 s after the file's teardown is
// printed with the file's name and where it was opened. Such a handle is what makes jest end a run with
// "A worker process has failed to exit gracefully", which names nothing. When jest ends a worker that
// would not exit (SIGTERM, 500 ms after the run), what still holds it is printed too, with the file it
// came from, including what a file's leftovers opened after it ended (a reconnect, a timer set again).
const { TestEnvironment } = require('jest-environment-node');
const { createHook } = require('node:async_hooks');
const { appendFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');

const WATCHED = new Set([
  'TCPWRAP',
  'TCPSERVERWRAP',
  'PIPEWRAP',
  'PROCESSWRAP',
  'WORKER',
  'MESSAGEPORT',
  'UDPWRAP',
  'Timeout',
]);
const GRACE_MS = 1000;

/** Every watched handle of this worker process still open: id → what it is, where and by which file it was opened. */
const opened = new Map();
let current = { file: '(before the first file)', ended: false };

createHook({
  init(id, type, _trigger, resource) {
    if (!WATCHED.has(type)) return;
    // A stack costs microseconds; timers are many, so theirs is their callback instead.
    const where = type === 'Timeout' ? '' : openedAt();
    opened.set(id, { type, resource, where, file: current.file, afterItEnded: current.ended });
  },
  destroy(id) {
    opened.delete(id);
  },
}).enable();

// The report also goes to a file: by the time jest kills a worker it may no longer read the worker's stderr.
process.once('SIGTERM', () => {
  const left = [...opened.values()].filter(holdsTheProcess);
  const report =
    `jest ended worker ${process.pid}; ${left.length} handle(s) held it` +
    ` (active: ${process.getActiveResourcesInfo().join(', ')}):\n` +
    left.map((h) => `  from ${h.file}${h.afterItEnded ? ' (opened after it ended)' : ''}:\n${describe(h)}`).join('\n');
  writeWorkerReport(report);
  process.exit(1);
});

function writeWorkerReport(report) {
  const file = join(tmpdir(), `jest-worker-${process.pid}-held.txt`);
  appendFileSync(file, `${report}\n`);
  process.stderr.write(`\n${report}\n(also in ${file})\n`);
}

// jest asks a worker to end (message 2) and kills it 500 ms later if it has not exited. What still holds it
// 400 ms after the ask is written down then, while it can still run JS, and so is how long its exit took.
const END = 2;
const ASKED_TO_END_REPORT_MS = 400;
function onJestMessage(message) {
  if (!Array.isArray(message) || message[0] !== END) return;
  // Our listener would keep the IPC channel, and so the worker, alive: it goes with jest's own.
  process.removeListener('message', onJestMessage);
  const askedAt = Date.now();
  setTimeout(() => {
    const left = [...opened.values()].filter(holdsTheProcess);
    writeWorkerReport(
      `worker ${process.pid} still running ${ASKED_TO_END_REPORT_MS} ms after jest asked it to end;` +
        ` rss ${Math.round(process.memoryUsage().rss / 1048576)} MiB;` +
        ` ${left.length} handle(s) hold it (active: ${process.getActiveResourcesInfo().join(', ')}):\n` +
        left
          .map((h) => `  from ${h.file}${h.afterItEnded ? ' (opened after it ended)' : ''}:\n${describe(h)}`)
          .join('\n'),
    );
  }, ASKED_TO_END_REPORT_MS).unref();
  process.once('exit', () => {
    const took = Date.now() - askedAt;
    const threads = [...opened.values()].filter((h) => h.type === 'WORKER');
    if (took >= ASKED_TO_END_REPORT_MS || threads.length)
      writeWorkerReport(
        `worker ${process.pid} exiting ${took} ms after jest asked it to end` +
          (threads.length ? `, first stopping ${threads.length} thread(s) still running:\n` : '') +
          threads.map((h) => `  from ${h.file}:\n${describe(h)}`).join('\n'),
      );
  });
}
process.on('message', onJestMessage);

class LeakReportingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.file = relative(process.cwd(), context.testPath);
    current = { file: this.file, ended: false };
  }

  async teardown() {
    current = { file: this.file, ended: true };
    // What the file closed goes within milliseconds; a worker left with more is killed 500 ms after the run's end.
    const deadline = Date.now() + GRACE_MS;
    let left = this.left();
    while (left.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = this.left();
    }
    if (left.length)
      process.stderr.write(
        `\n${this.file} left ${left.length} handle(s) holding the process ${GRACE_MS} ms after it ended:\n` +
          left.map(describe).join('\n') +
          '\n',
      );
    await super.teardown();
  }

  /** What this file opened while it ran and is still holding the process. */
  left() {
    return [...opened.values()].filter((h) => h.file === this.file && !h.afterItEnded && holdsTheProcess(h));
  }
}
function holdsTheProcess({ type, resource }) {
  if (type === 'Timeout') return !resource._destroyed && resource.hasRef();
  // A thread still running holds the process's exit even when unref'd: Node stops every thread before it
  // exits, and one busy in native code (a JSON.parse of megabytes) finishes that first, past jest's 500 ms.
  if (type === 'WORKER') return true;
  if (type === 'PIPEWRAP' && resource.fd >= 0 && resource.fd <= 2) return false; // the worker's own stdio
  return typeof resource.hasRef !== 'function' || resource.hasRef();
}

function describe({ type, resource, where }) {
  if (type === 'Timeout')
    return `  Timeout of ${resource._idleTimeout} ms: ${String(resource._onTimeout).slice(0, 160)}`;
  return `  ${type}\n${where}`;
}

function openedAt() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack
    .split('\n')
    .slice(2)
    .filter(
      (line) => !line.includes('node:internal') && !line.includes('node_modules/jest-') && !line.includes(__filename),
    )
    .slice(0, 12)
    .join('\n');
}

module.exports = LeakReportingEnvironment;
