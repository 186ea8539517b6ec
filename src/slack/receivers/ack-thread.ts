/**
 * The acknowledging thread: Bolt's HTTP receiver (signature check, body limit, ssl_check,
 * url_verification) in a worker thread of its own. The named slash commands and clicks are acknowledged
 * here with an empty body the moment they are verified; every other event waits for its
 * listener's ack from the main thread, as it would in one thread. An answer's work on the main
 * thread (and that thread's garbage collections) never delays an ack: this thread does nothing else.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import type { App, HTTPReceiver as HTTPReceiverClass, Logger, LogLevel, ReceiverEvent } from '@slack/bolt';
import {
  type AckThreadData,
  acknowledgedOnArrival,
  BLOCK_ACTIONS,
  BOLT_FUNCTION_ACK_MS,
  type FromAckThread,
  type HTTP_LOG_LEVELS,
  ToAckThreadSchema,
} from './ack-thread-messages.js';
import { loadBoltReceiver } from './bolt-receiver.js';

// Only the receiver's modules, not all of Bolt: the thread listens sooner (bolt-receiver.ts).
const { HTTPReceiver, AuthorizationError, ErrorCode, loaded } = loadBoltReceiver(
  createRequire(import.meta.url),
);

const port = parentPort;
if (!port) throw new Error('ack-thread.ts runs as a worker thread');
/**
 * The settings of the `listen` message. The thread may be started before the main thread knows
 * them (ack-thread-start.ts), so that its modules load while the app's do; nothing reads them
 * before a request can come, and none comes before it listens.
 */
let data: AckThreadData;
const send = (message: FromAckThread) => port.postMessage(message);

/** Bolt's receiver logs through the main thread's logger, which redacts; never below INFO. */
const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
const log =
  (level: (typeof HTTP_LOG_LEVELS)[number]) =>
  (...args: unknown[]) =>
    send({ type: 'log', level, text: text(args) });
/** Every counted warning's flush, so that a stopping thread logs what it had counted. */
const countedFlushes: (() => void)[] = [];

/**
 * What Bolt says once per refused request (unsigned, too large, malformed, an unknown path):
 * anyone who can reach the port can send those, so they are counted, not logged one by one.
 * Each kind is counted on its own, so a flood of one (scanners asking for /wp-login.php) never
 * hides another (Slack's requests failing their signature after a secret was rotated).
 */
const REFUSALS: readonly { prefix: string; level: (typeof HTTP_LOG_LEVELS)[number] }[] = [
  { prefix: 'Failed to parse and verify the request data', level: 'warn' },
  { prefix: 'Failed to parse the request body', level: 'warn' },
  { prefix: 'Request body exceeded the maximum allowed size', level: 'warn' },
  { prefix: 'Malformed request body', level: 'warn' },
  { prefix: 'Unhandled HTTP request', level: 'info' },
];
const refusalReports = new Map(
  REFUSALS.map(({ prefix, level }) => {
    let latest = '';
    const report = countedWarning(
      (count) => `${count} request(s) refused by the HTTP receiver; the latest: ${latest}`,
      level,
    );
    const refused = (said: string) => {
      latest = said;
      report();
    };
    return [prefix, refused] as const;
  }),
);
/** What Bolt says of a body this thread cut off at its deadline: counted as dropped, not again as refused. */
const ABORTED_BY_US = 'Failed to parse and verify the request data: request aborted';
let abortedByUs = 0;
/** Sockets with a request Bolt is reading: a failure on them is Bolt's to report. */
const reading = new WeakSet<object>();
const boltLog =
  (level: (typeof HTTP_LOG_LEVELS)[number]) =>
  (...args: unknown[]) => {
    const said = text(args);
    if (said === ABORTED_BY_US && abortedByUs > 0) {
      abortedByUs--;
      return;
    }
    const kind = REFUSALS.find(({ prefix }) => said.startsWith(prefix));
    if (kind) refusalReports.get(kind.prefix)?.(said);
    else log(level)(said);
  };
const logger: Logger = {
  debug: () => undefined,
  info: boltLog('info'),
  warn: boltLog('warn'),
  error: boltLog('error'),
  setLevel: () => undefined,
  getLevel: () => 'info' as LogLevel,
  setName: () => undefined,
};

interface Waiting {
  ack: ReceiverEvent['ack'];
  done: (error?: { message: string; code?: string }) => void;
  /** Whether the main thread's ack for it came; until then a late one is still delivered. */
  acked: boolean;
  /** When Bolt stops waiting for its ack (performance.now()): it is forgotten then at the latest. */
  givenUpAt: number;
}
const events = new Map<number, Waiting>();
/** Commands and clicks acknowledged here that the main thread has not finished yet. */
const handedOver = new Set<number>();

/** The answer to a command while too many wait for the main thread: nothing of it runs. */
const BUSY = {
  response_type: 'ephemeral',
  text: 'edgeops has more commands waiting than it can take right now, so this one was not run. Try it again in a minute.',
};
/**
 * Counts what happened and logs a warning at most every `reportEveryMs` (10 s), with how many
 * times since the last line: a flood of requests makes one line, not one each. The first is
 * logged at once, and what a window counted is logged at its end (or when the thread stops), so
 * no count is lost when the flood stops.
 */
function countedWarning(
  line: (count: number) => string,
  level: (typeof HTTP_LOG_LEVELS)[number] = 'warn',
): () => void {
  let count = 0;
  let flush: NodeJS.Timeout | undefined;
  const report = () => {
    flush = undefined;
    if (count === 0) return;
    log(level)(line(count));
    count = 0;
    flush = setTimeout(report, data.reportEveryMs).unref();
  };
  countedFlushes.push(() => {
    clearTimeout(flush);
    report();
  });
  return () => {
    count++;
    if (flush === undefined) report();
  };
}
const reportBusy = countedWarning(
  (count) =>
    `${count} command(s) answered as busy: ${handedOver.size} were waiting for the main thread (at most ${data.maxWaiting})`,
);
const reportAbandoned = countedWarning(
  (count) =>
    `${count} request(s) dropped unread: their body was still arriving ${data.bodyDeadlineMs} ms after their headers`,
);
const routes = new Map<number, ServerResponse>();
let listening: Server | undefined;
let nextId = 0;

// As main.ts does for the main thread: a failure in Bolt's request handling (a signed body of
// `null` makes it throw where nothing awaits) is logged, never the end of the thread, and its
// request is answered by answerEveryRequest.
const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
process.on('unhandledRejection', (reason) =>
  log('error')(`unhandled rejection in the HTTP thread: ${describe(reason)}`),
);
process.on('uncaughtException', (error) => {
  // Before it listens (Bolt's receiver refused its options), the start fails with the reason.
  if (!listening) {
    send({ type: 'failed', message: describe(error) });
    process.exit(1);
  }
  log('error')(`uncaught exception in the HTTP thread: ${describe(error)}`);
});

/**
 * Every request gets an answer, or its connection is closed.
 * - One whose body is still arriving `bodyDeadlineMs` after its headers (Slack's 3 s) is one Slack
 *   has given up on: its connection is closed, so Bolt never verifies it and nothing of it runs,
 *   not even a body that completes later. These are counted, one line per `reportEveryMs`.
 * - One still unanswered `lastAnswerMs` after its headers came (past Bolt's own unhandled-request
 *   timeouts) is one Bolt failed on before it set its timer (a signed JSON `null` throws there),
 *   or a route the main thread did not answer in time: it is answered 500 instead of holding the
 *   connection until the client gives up.
 */
function answerEveryRequest(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // Bolt reads the events path's bodies, and says when one is cut short; nothing reads another
    // route's body, and nothing says so. The path is matched as Bolt matches it.
    const readByBolt = req.method === 'POST' && pathOf(req.url) === data.endpoint;
    if (readByBolt) reading.add(req.socket);
    const bodyTimer = setTimeout(() => {
      if (req.complete || res.headersSent || res.writableEnded) return;
      reportAbandoned();
      // Bolt will say this body was aborted: that is this drop, not a refusal.
      if (readByBolt) abortedByUs++;
      req.socket.destroy();
    }, data.bodyDeadlineMs).unref();
    const answerTimer = setTimeout(() => {
      if (res.headersSent || res.writableEnded) return;
      log('error')(
        `${req.method} ${pathOf(req.url)} had no answer after ${data.lastAnswerMs} ms; answered 500`,
      );
      res.writeHead(500);
      res.end();
    }, data.lastAnswerMs).unref();
    req.once('end', () => {
      // Its body is all here: what fails on the connection after this is not Bolt's to report.
      reading.delete(req.socket);
      clearTimeout(bodyTimer);
    });
    res.once('close', () => {
      reading.delete(req.socket);
      clearTimeout(bodyTimer);
      clearTimeout(answerTimer);
    });
  });
}

/** A request's path as Bolt matches it against its endpoints (`/slack/./events` is `/slack/events`). */
function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

const reportIdleConnections = countedWarning(
  (count) =>
    `${count} connection(s) closed that sent nothing within ${data.bodyDeadlineMs} ms (a proxy's spare connections, or a flood of idle ones)`,
  'info',
);

const reportBrokenConnections = countedWarning(
  (count) =>
    `${count} connection(s) closed before a request was read: headers not all here within ${data.bodyDeadlineMs} ms, or not HTTP`,
);

/** Node's own answers to a connection it could not read a request from (its socketOnError). */
const CLIENT_ERROR_STATUS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
};

/**
 * A connection whose headers are late or not HTTP is answered as Node would (408, 431, 413 or
 * 400) and closed, and counted: anyone who can reach the port can cause these. Not counted:
 * a connection reset, one that sent nothing at all (opened ahead by a proxy, then idle: counted
 * apart, at info), and one whose body Bolt was reading (Bolt says it was aborted).
 */
function closeBrokenConnections(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & Partial<Socket>) => {
    const idle = socket.bytesRead === 0;
    const quiet = error.code === 'ECONNRESET' || error.code === 'EPIPE' || idle || reading.has(socket);
    // Counted apart, at info: a proxy opens these ahead, but a flood of them is still seen.
    if (idle && error.code !== 'ECONNRESET') reportIdleConnections();
    if (!quiet) reportBrokenConnections();
    // As Node does: no status line in the middle of a response already under way.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (!quiet && socket.writable && !socket.writableEnded && !answering) {
      const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroy();
  });
}

/** A failure the main thread reported, rebuilt so that Bolt's error handler answers as it would (401 or 500). */
function remoteError(error: { message: string; code?: string }): Error {
  if (error.code === ErrorCode.AuthorizationError)
    return new AuthorizationError(error.message, new Error(error.message));
  return Object.assign(new Error(error.message), { code: error.code });
}

/** Stands in for the App: Bolt's receiver calls processEvent for every verified event. */
const proxy = {
  async processEvent(event: ReceiverEvent): Promise<void> {
    const id = ++nextId;
    if (typeof event.body !== 'object' || event.body === null || Array.isArray(event.body))
      // Signed, but no event Slack sends: Bolt's handler answers 500 and logs it.
      throw new Error('the request body is not an object');
    const body = event.body as Record<string, unknown>;
    const base = {
      type: 'event' as const,
      id,
      body,
      // x-slack-retry-num is not signed: anything but a number parses to NaN, which is no retry.
      retryNum: Number.isSafeInteger(event.retryNum) ? event.retryNum : undefined,
      retryReason: event.retryReason,
    };
    const command = acknowledgedOnArrival(body, data.commands);
    // A click past the limit waits for its listener's ack instead: a click has no busy answer to show.
    const tooMany = handedOver.size >= data.maxWaiting;
    if (command !== undefined && !(tooMany && command === BLOCK_ACTIONS)) {
      const received = performance.now();
      if (tooMany) {
        // The main thread is that far behind: say so now instead of queueing without end.
        await event.ack(BUSY);
        reportBusy();
        return;
      }
      await event.ack();
      // Only commands count towards the limit: a flood of clicks never makes /edge answer busy.
      if (command !== BLOCK_ACTIONS) handedOver.add(id);
      send({ ...base, acknowledged: { command, seconds: (performance.now() - received) / 1000 } });
      return;
    }
    // Bolt's own wait for an ack: longer for a workflow function's event, fixed in its HTTPResponseAck.
    const waitMs =
      (body.event as { type?: unknown } | undefined)?.type === 'function_executed'
        ? BOLT_FUNCTION_ACK_MS
        : data.unhandledRequestTimeoutMillis;
    await new Promise<void>((resolve, reject) => {
      const waiting: Waiting = {
        ack: event.ack,
        acked: false,
        givenUpAt: performance.now() + waitMs,
        done: (error) => {
          // A listener may still ack after it returned, as in one thread, until Bolt gives up.
          const left = waiting.givenUpAt - performance.now();
          if (waiting.acked || left <= 0) events.delete(id);
          else setTimeout(() => events.delete(id), left).unref();
          if (error) reject(remoteError(error));
          else resolve();
        },
      };
      events.set(id, waiting);
      send(base);
    });
  },
};

let receiver: HTTPReceiverClass | undefined;

/** Builds Bolt's receiver with the main thread's settings and listens; says so, or why not. */
function listen(settings: AckThreadData): void {
  if (receiver) return;
  data = settings;
  receiver = new HTTPReceiver({
    signingSecret: data.signingSecret,
    endpoints: data.endpoint,
    customRoutes: data.routes.map((route) => ({
      path: route.path,
      method: route.methods,
      handler: (req, res) => {
        const id = ++nextId;
        routes.set(id, res);
        res.once('close', () => routes.delete(id));
        send({ type: 'route', id, path: route.path, method: req.method ?? 'GET' });
      },
    })),
    logger,
    processBeforeResponse: false,
    unhandledRequestTimeoutMillis: data.unhandledRequestTimeoutMillis,
  });
  receiver.init(proxy as unknown as App);
  // Headers, like a body, that are not all here in Slack's 3 s close the connection: a client
  // that trickles them would otherwise hold it for Node's default of a minute.
  const serverOptions = {
    headersTimeout: data.bodyDeadlineMs,
    // Headers and body each get the deadline; the thread's own body timer always comes first.
    requestTimeout: 2 * data.bodyDeadlineMs + 1_000,
    connectionsCheckingInterval: 500,
  };
  receiver.start(data.port, serverOptions).then(
    async (server) => {
      listening = server;
      answerEveryRequest(server);
      closeBrokenConnections(server);
      if (loaded === 'whole')
        log('info')("Bolt's receiver modules were not at their usual paths; all of Bolt was loaded instead");
      if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
      send({ type: 'listening', port: (server.address() as AddressInfo).port });
    },
    (error: unknown) => {
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      port?.close();
    },
  );
}

port.on('message', (raw: unknown) => {
  const parsed = ToAckThreadSchema.safeParse(raw);
  if (!parsed.success) {
    // Settings it cannot read: the start fails with why, instead of waiting for ever.
    if ((raw as { type?: unknown } | null)?.type === 'listen' && !receiver) {
      send({ type: 'failed', message: `the settings are not valid: ${parsed.error.message}` });
      process.exit(1);
    }
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'listen':
      listen(message.settings);
      return;
    case 'ack': {
      const waiting = events.get(message.id);
      if (!waiting) {
        log('warn')("a listener's ack came after Bolt had stopped waiting for it; Slack was not sent it");
        return;
      }
      waiting.acked = true;
      // A second ack is refused on the main thread; one after Bolt's timeout answered fails here.
      void waiting
        .ack(message.response as Parameters<ReceiverEvent['ack']>[0])
        .catch((error: unknown) =>
          log('warn')(`a listener's ack could not be sent (after Slack's 3 seconds?): ${describe(error)}`),
        );
      return;
    }
    case 'done':
      handedOver.delete(message.id);
      events.get(message.id)?.done(message.error);
      return;
    case 'route': {
      const res = routes.get(message.id);
      routes.delete(message.id);
      if (!res || res.headersSent) return;
      res.writeHead(message.status, { 'content-type': message.contentType });
      res.end(message.body);
      return;
    }
    case 'stop':
      // Never told to listen: nothing to answer.
      if (!receiver) process.exit(0);
      // Requests in flight are still answered (their acks keep coming from the main thread until
      // this exits); a connection idle after its answer would hold the server for its keep-alive.
      setInterval(() => listening?.closeIdleConnections(), 50).unref();
      void receiver
        .stop()
        .catch(() => undefined)
        .finally(() => {
          for (const waiting of events.values()) waiting.done({ message: 'the app is stopping' });
          for (const flush of countedFlushes) flush();
          // Ends this thread only; Bolt's timers for requests nobody acknowledged would hold it.
          process.exit(0);
        });
      return;
  }
});
