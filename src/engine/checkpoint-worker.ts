/**
 * The worker of checkpointer.ts: the first message names the database file, each later one asks
 * for a PASSIVE checkpoint on this worker's own connection (bun:sqlite calls are synchronous: run
 * here they do not block the writer's thread). A checkpoint reads no table, so the connection needs
 * neither sqlite-vec nor the engine's pragmas, only WAL's synchronous = NORMAL (the file is fsynced
 * after the copy, as the writer's own checkpoint does) and a busy timeout.
 */
import { Database } from "bun:sqlite";
import { describeError } from "./errors.ts";
import type { CheckpointerReply, CheckpointerRequest } from "./checkpointer.ts";

declare const self: Worker;
let db: Database | undefined;

self.onmessage = (event: MessageEvent<CheckpointerRequest>) => {
  const request = event.data;
  let reply: CheckpointerReply;
  try {
    if (request.type === "open") {
      db = new Database(request.path, { readwrite: true, create: false });
      db.run("PRAGMA busy_timeout = 5000");
      db.run("PRAGMA synchronous = NORMAL");
      reply = { type: "opened", id: request.id };
    } else {
      if (!db) throw new Error("the checkpointing connection is not open");
      const row = db.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
      reply = { type: "checkpointed", id: request.id, busy: row?.busy === 1, logPages: row?.log ?? 0, checkpointedPages: row?.checkpointed ?? 0 };
    }
  } catch (error) {
    reply = { type: "error", id: request.id, message: describeError(error) };
  }
  self.postMessage(reply);
};
