/** GET /health as a readiness check: it says whether the server still warms recall up. */
import { expect, test } from "bun:test";
import { startHttpServer } from "../../../src/server/http/serve.ts";
import { makeTempDir, openTempGllam } from "../../helpers.ts";
import { call } from "./serve-process.ts";

test("GET /health says warmingUp while the server's warm-up runs, then not; without a warm-up, never", async () => {
  const gllam = await openTempGllam(makeTempDir());
  let warming = true;
  const servers = [startHttpServer(gllam, { host: "127.0.0.1", port: 0, maxBodyBytes: 1 << 20, warmingUp: () => warming }), startHttpServer(gllam, { host: "127.0.0.1", port: 0, maxBodyBytes: 1 << 20 })];
  try {
    const [warmed, plain] = servers.map((server) => ({ url: server.url.href.replace(/\/$/, "") }));
    expect((await call(warmed!, "GET", "/health")).json).toEqual({ status: "ok", warmingUp: true });
    expect((await call(plain!, "GET", "/health")).json).toEqual({ status: "ok", warmingUp: false });
    warming = false;
    expect((await call(warmed!, "GET", "/health")).json).toEqual({ status: "ok", warmingUp: false });
  } finally {
    for (const server of servers) await server.stop(true);
    gllam.close();
  }
});
