// The worker thread of `SessionWorker`: opens the one session of the served root and answers the
// calls the main thread sends, one at a time, in the order they came. Errors of the core travel
// back with their code.

import { parentPort, workerData } from "node:worker_threads";

import { openSession, type OpenSessionOptions, type Session } from "../index";

const port = parentPort!;
let session: Session;
try {
  session = openSession(workerData as OpenSessionOptions);
  port.postMessage({ type: "ready", engine: session.engine });
} catch (e) {
  const err = e as Error & { code?: string };
  port.postMessage({ type: "failed", error: { code: err.code ?? "INTERNAL", message: err.message } });
  process.exit(1);
}

port.on("message", (m: { id: number; type: "call" | "warmup"; method?: string; request?: unknown }) => {
  try {
    let value: unknown;
    if (m.type === "warmup") {
      session.prepareSearch();
      value = session.call("status").files;
    } else {
      value = session.raw.call(m.method as never, m.request ?? {});
    }
    port.postMessage({ id: m.id, ok: true, value, notes: session.takeNotes() });
  } catch (e) {
    const err = e as Error & { code?: string };
    port.postMessage({ id: m.id, ok: false, error: { code: err.code ?? "INTERNAL", message: err.message } });
  }
});
